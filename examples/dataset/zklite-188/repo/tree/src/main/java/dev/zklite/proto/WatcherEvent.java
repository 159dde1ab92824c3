package dev.zklite.proto;

import java.io.IOException;

/** A watch notification as it travels from server to client. */
public record WatcherEvent(EventType type, KeeperState state, String path) {

    public enum EventType {
        NONE(-1),
        NODE_CREATED(1),
        NODE_DELETED(2),
        NODE_DATA_CHANGED(3),
        NODE_CHILDREN_CHANGED(4);

        private final int code;

        EventType(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        public static EventType fromCode(int code) throws IOException {
            for (EventType t : values()) {
                if (t.code == code) {
                    return t;
                }
            }
            throw new IOException("unknown event type " + code);
        }
    }

    /** Connection state as seen by the client; only SYNC_CONNECTED is sent by servers. */
    public enum KeeperState {
        DISCONNECTED(0),
        SYNC_CONNECTED(3),
        AUTH_FAILED(4),
        CONNECTED_READ_ONLY(5),
        EXPIRED(-112),
        CLOSED(7);

        private final int code;

        KeeperState(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        public static KeeperState fromCode(int code) throws IOException {
            for (KeeperState s : values()) {
                if (s.code == code) {
                    return s;
                }
            }
            throw new IOException("unknown keeper state " + code);
        }
    }

    public void write(WireOutput out) {
        out.writeInt(type.code()).writeInt(state.code()).writeString(path);
    }

    public static WatcherEvent read(WireInput in) throws IOException {
        EventType type = EventType.fromCode(in.readInt());
        KeeperState state = KeeperState.fromCode(in.readInt());
        return new WatcherEvent(type, state, in.readString());
    }
}
