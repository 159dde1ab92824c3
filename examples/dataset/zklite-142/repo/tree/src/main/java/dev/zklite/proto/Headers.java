package dev.zklite.proto;

import java.io.IOException;

/** The fixed headers in front of every request and reply, plus the reserved xids. */
public final class Headers {

    /** xid of watch notifications pushed by the server. */
    public static final int NOTIFICATION_XID = -1;
    /** xid of pings; pings are answered out of order with respect to other requests. */
    public static final int PING_XID = -2;
    /** xid of the authentication packet. */
    public static final int AUTH_XID = -4;
    /** xid of the watch re-registration sent after a reconnect. */
    public static final int SET_WATCHES_XID = -8;

    private Headers() {
    }

    /** Client to server: which request this is and how to match its reply. */
    public record RequestHeader(int xid, OpCode op) {

        public void write(WireOutput out) {
            out.writeInt(xid).writeInt(op.code());
        }

        public static RequestHeader read(WireInput in) throws IOException {
            int xid = in.readInt();
            int code = in.readInt();
            try {
                return new RequestHeader(xid, OpCode.fromCode(code));
            } catch (IllegalArgumentException e) {
                throw new IOException("request xid " + xid + ": " + e.getMessage());
            }
        }
    }

    /** Server to client: the xid it answers, the zxid the server had seen, the result. */
    public record ReplyHeader(int xid, long zxid, ErrorCode err) {

        public void write(WireOutput out) {
            out.writeInt(xid).writeLong(zxid).writeInt(err.code());
        }

        public static ReplyHeader read(WireInput in) throws IOException {
            return new ReplyHeader(in.readInt(), in.readLong(), ErrorCode.fromCode(in.readInt()));
        }

        public boolean isPing() {
            return xid == PING_XID;
        }

        public boolean isNotification() {
            return xid == NOTIFICATION_XID;
        }
    }
}
