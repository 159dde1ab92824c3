package dev.zklite.server;

import java.util.List;

/** A client request on its way through the pipeline. */
public final class Request {

    public enum Type { CREATE, DELETE, SET_DATA, SET_ACL, GET_DATA, SYNC }

    public final long sessionId;
    public final int cxid;
    public final Type type;
    public final String path;
    public final byte[] data;
    public final List<Acl> acl;
    public final ResponseSink sink;
    /** Assigned by the leader when the txn is proposed. */
    public long zxid = -1;

    public Request(long sessionId, int cxid, Type type, String path, byte[] data, List<Acl> acl, ResponseSink sink) {
        this.sessionId = sessionId;
        this.cxid = cxid;
        this.type = type;
        this.path = path;
        this.data = data;
        this.acl = acl;
        this.sink = sink;
    }

    public boolean isWrite() {
        return type != Type.GET_DATA;
    }

    @Override
    public String toString() {
        return "sessionid:0x" + Long.toHexString(sessionId) + " type:" + type + " cxid:0x" + Integer.toHexString(cxid)
                + " zxid:0x" + Long.toHexString(zxid) + " path:" + path;
    }

    /** Where the response goes (the client connection). */
    public interface ResponseSink {
        void send(int cxid, long zxid, Code code, byte[] payload);
    }

    /** Result codes sent to clients. */
    public enum Code { OK, NO_NODE, NODE_EXISTS, BAD_VERSION, NO_AUTH, SYSTEM_ERROR }

    /** An access control entry. */
    public record Acl(int perms, String scheme, String id) {
    }
}
