package dev.zklite.server;

/**
 * Tracks client sessions on the leader: creation, keep-alive and expiry.
 */
public interface SessionTracker {

    /** A session as the tracker sees it. */
    interface Session {
        long getSessionId();

        int getTimeout();

        boolean isClosing();
    }

    /** Called for every session whose deadline passed without a ping. */
    interface SessionExpirer {
        void expire(Session session);

        long getServerId();
    }

    long createSession(int sessionTimeout);

    /**
     * Records activity of a session and moves its deadline.
     *
     * @return false if the session is unknown or already closing
     */
    boolean touchSession(long sessionId, int sessionTimeout);

    /** Marks a session as closing: no further activity is accepted for it. */
    void setSessionClosing(long sessionId);

    void removeSession(long sessionId);

    /** Throws if the session is unknown or closing. */
    void checkSession(long sessionId) throws SessionExpiredException;

    void shutdown();
}
