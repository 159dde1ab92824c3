package dev.zklite.proto;

import java.util.HashMap;
import java.util.Map;

/** Result codes in reply headers. Negative values are errors. */
public enum ErrorCode {
    OK(0),
    SYSTEM_ERROR(-1),
    RUNTIME_INCONSISTENCY(-2),
    DATA_INCONSISTENCY(-3),
    CONNECTION_LOSS(-4),
    MARSHALLING_ERROR(-5),
    UNIMPLEMENTED(-6),
    OPERATION_TIMEOUT(-7),
    BAD_ARGUMENTS(-8),
    NEW_CONFIG_NO_QUORUM(-13),
    API_ERROR(-100),
    NO_NODE(-101),
    NO_AUTH(-102),
    BAD_VERSION(-103),
    NO_CHILDREN_FOR_EPHEMERALS(-108),
    NODE_EXISTS(-110),
    NOT_EMPTY(-111),
    SESSION_EXPIRED(-112),
    INVALID_CALLBACK(-113),
    INVALID_ACL(-114),
    AUTH_FAILED(-115),
    SESSION_MOVED(-118),
    NOT_READ_ONLY(-119),
    THROTTLED(-127),
    REQUEST_TIMEOUT(-122);

    private static final Map<Integer, ErrorCode> BY_CODE = new HashMap<>();

    static {
        for (ErrorCode e : values()) {
            BY_CODE.put(e.code, e);
        }
    }

    private final int code;

    ErrorCode(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** An unknown code from a newer server is reported as a system error, not dropped. */
    public static ErrorCode fromCode(int code) {
        return BY_CODE.getOrDefault(code, SYSTEM_ERROR);
    }

    /**
     * Whether a client may retry the operation on the same session: the request may or may
     * not have been applied, so only idempotent operations should be retried blindly.
     */
    public boolean isRetryable() {
        return this == CONNECTION_LOSS || this == OPERATION_TIMEOUT || this == THROTTLED
                || this == REQUEST_TIMEOUT;
    }

    /** Errors after which the session can never be used again. */
    public boolean isFatalForSession() {
        return this == SESSION_EXPIRED || this == AUTH_FAILED;
    }
}
