package dev.zklite.proto;

import java.io.IOException;

/** Metadata of a node as returned by exists, getData and setData. */
public record Stat(long czxid, long mzxid, long ctime, long mtime, int version, int aversion,
        long ephemeralOwner, int dataLength, int numChildren) {

    public void write(WireOutput out) {
        out.writeLong(czxid).writeLong(mzxid).writeLong(ctime).writeLong(mtime)
                .writeInt(version).writeInt(aversion).writeLong(ephemeralOwner)
                .writeInt(dataLength).writeInt(numChildren);
    }

    public static Stat read(WireInput in) throws IOException {
        return new Stat(in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readInt(),
                in.readInt(), in.readLong(), in.readInt(), in.readInt());
    }

    public boolean isEphemeral() {
        return ephemeralOwner != 0;
    }
}
