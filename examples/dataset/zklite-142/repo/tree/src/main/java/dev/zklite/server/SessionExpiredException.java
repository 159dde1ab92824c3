package dev.zklite.server;

/** The session does not exist (any more) or is being closed. */
public class SessionExpiredException extends Exception {
    private static final long serialVersionUID = 1L;

    public SessionExpiredException(long sessionId) {
        super("session 0x" + Long.toHexString(sessionId) + " expired");
    }
}
