package dev.zklite.proto;

import java.util.HashMap;
import java.util.Map;

/**
 * Operation codes on the wire. The numeric values are part of the protocol and must never
 * change; new operations get new numbers.
 */
public enum OpCode {
    NOTIFICATION(0, false),
    CREATE(1, true),
    DELETE(2, true),
    EXISTS(3, false),
    GET_DATA(4, false),
    SET_DATA(5, true),
    GET_ACL(6, false),
    SET_ACL(7, true),
    GET_CHILDREN(8, false),
    SYNC(9, false),
    PING(11, false),
    CHECK_VERSION(13, true),
    MULTI(14, true),
    AUTH(100, false),
    SET_WATCHES(101, false),
    CREATE_SESSION(-10, true),
    CLOSE_SESSION(-11, true),
    ERROR(-1, false);

    private static final Map<Integer, OpCode> BY_CODE = new HashMap<>();

    static {
        for (OpCode op : values()) {
            BY_CODE.put(op.code, op);
        }
    }

    private final int code;
    private final boolean write;

    OpCode(int code, boolean write) {
        this.code = code;
        this.write = write;
    }

    public int code() {
        return code;
    }

    /** Whether the operation changes the tree and therefore goes through the quorum. */
    public boolean isWrite() {
        return write;
    }

    /**
     * Looks up an op code received from a client.
     *
     * @throws IllegalArgumentException for a code this server does not know
     */
    public static OpCode fromCode(int code) {
        OpCode op = BY_CODE.get(code);
        if (op == null) {
            throw new IllegalArgumentException("unknown op code " + code);
        }
        return op;
    }
}
