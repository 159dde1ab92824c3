package dev.zklite.proto;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Big-endian encoder for protocol records. Strings and byte arrays are written with an int
 * length prefix; a length of -1 stands for null.
 */
public final class WireOutput {

    private ByteBuffer buf;

    public WireOutput() {
        this(256);
    }

    public WireOutput(int initialCapacity) {
        // the first four bytes are reserved for the frame length, see toFrame()
        this.buf = ByteBuffer.allocate(Math.max(16, initialCapacity));
        buf.putInt(0);
    }

    private void ensure(int extra) {
        if (buf.remaining() >= extra) {
            return;
        }
        int capacity = buf.capacity();
        while (capacity - buf.position() < extra) {
            capacity *= 2;
        }
        ByteBuffer bigger = ByteBuffer.allocate(capacity);
        buf.flip();
        bigger.put(buf);
        buf = bigger;
    }

    public WireOutput writeInt(int value) {
        ensure(4);
        buf.putInt(value);
        return this;
    }

    public WireOutput writeLong(long value) {
        ensure(8);
        buf.putLong(value);
        return this;
    }

    public WireOutput writeBool(boolean value) {
        ensure(1);
        buf.put((byte) (value ? 1 : 0));
        return this;
    }

    public WireOutput writeBuffer(byte[] value) {
        if (value == null) {
            return writeInt(-1);
        }
        ensure(4 + value.length);
        buf.putInt(value.length);
        buf.put(value);
        return this;
    }

    public WireOutput writeString(String value) {
        return writeBuffer(value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    public WireOutput writeStringList(List<String> values) {
        if (values == null) {
            return writeInt(-1);
        }
        writeInt(values.size());
        for (String value : values) {
            writeString(value);
        }
        return this;
    }

    /** Bytes written so far, not counting the reserved length prefix. */
    public int size() {
        return buf.position() - 4;
    }

    /** The record as a frame: the length prefix filled in, ready for a channel write. */
    public ByteBuffer toFrame() {
        ByteBuffer frame = buf.duplicate();
        frame.flip();
        frame.putInt(0, frame.limit() - 4);
        return frame;
    }
}
