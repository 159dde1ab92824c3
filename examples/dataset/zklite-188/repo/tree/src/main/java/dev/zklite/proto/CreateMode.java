package dev.zklite.proto;

/** How a node is created: persistent or tied to the session, with or without a sequence suffix. */
public enum CreateMode {
    PERSISTENT(0, false, false),
    EPHEMERAL(1, true, false),
    PERSISTENT_SEQUENTIAL(2, false, true),
    EPHEMERAL_SEQUENTIAL(3, true, true);

    private final int flag;
    private final boolean ephemeral;
    private final boolean sequential;

    CreateMode(int flag, boolean ephemeral, boolean sequential) {
        this.flag = flag;
        this.ephemeral = ephemeral;
        this.sequential = sequential;
    }

    public int flag() {
        return flag;
    }

    public boolean isEphemeral() {
        return ephemeral;
    }

    public boolean isSequential() {
        return sequential;
    }

    public static CreateMode fromFlag(int flag) {
        for (CreateMode mode : values()) {
            if (mode.flag == flag) {
                return mode;
            }
        }
        throw new IllegalArgumentException("Received an invalid flag value: " + flag + " to convert to a CreateMode");
    }
}
