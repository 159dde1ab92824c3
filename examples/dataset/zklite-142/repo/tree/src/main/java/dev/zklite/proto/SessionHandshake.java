package dev.zklite.proto;

import java.io.IOException;

/**
 * The first exchange on a new connection. A client with sessionId 0 asks for a new session;
 * otherwise it tries to re-attach to an existing one with its password. The server answers
 * with the negotiated timeout, or with a timeout of 0 when the session is gone.
 */
public final class SessionHandshake {

    public static final int PROTOCOL_VERSION = 0;
    public static final int PASSWORD_LENGTH = 16;

    private SessionHandshake() {
    }

    public record ConnectRequest(int protocolVersion, long lastZxidSeen, int timeoutMs, long sessionId,
            byte[] password, boolean readOnly) {

        public void write(WireOutput out) {
            out.writeInt(protocolVersion)
                    .writeLong(lastZxidSeen)
                    .writeInt(timeoutMs)
                    .writeLong(sessionId)
                    .writeBuffer(password)
                    .writeBool(readOnly);
        }

        public static ConnectRequest read(WireInput in) throws IOException {
            int version = in.readInt();
            long lastZxid = in.readLong();
            int timeout = in.readInt();
            long sessionId = in.readLong();
            byte[] password = in.readBuffer();
            // clients older than the read-only mode do not send the flag
            boolean readOnly = in.hasRemaining() && in.readBool();
            return new ConnectRequest(version, lastZxid, timeout, sessionId, password, readOnly);
        }

        public boolean isReconnect() {
            return sessionId != 0;
        }
    }

    public record ConnectResponse(int protocolVersion, int timeoutMs, long sessionId, byte[] password,
            boolean readOnly) {

        /** The answer for a client whose session no longer exists. */
        public static ConnectResponse expired() {
            return new ConnectResponse(PROTOCOL_VERSION, 0, 0, new byte[PASSWORD_LENGTH], false);
        }

        public boolean isExpired() {
            return timeoutMs <= 0;
        }

        public void write(WireOutput out) {
            out.writeInt(protocolVersion)
                    .writeInt(timeoutMs)
                    .writeLong(sessionId)
                    .writeBuffer(password)
                    .writeBool(readOnly);
        }

        public static ConnectResponse read(WireInput in) throws IOException {
            int version = in.readInt();
            int timeout = in.readInt();
            long sessionId = in.readLong();
            byte[] password = in.readBuffer();
            boolean readOnly = in.hasRemaining() && in.readBool();
            return new ConnectResponse(version, timeout, sessionId, password, readOnly);
        }
    }
}
