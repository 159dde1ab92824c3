package dev.zklite.proto;

import java.io.EOFException;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Decoder matching {@link WireOutput}. Every length read from the wire is checked against
 * the remaining bytes and against {@code maxBuffer}, so a corrupt or hostile frame fails
 * with an IOException instead of a huge allocation.
 */
public final class WireInput {

    private final ByteBuffer buf;
    private final int maxBuffer;

    public WireInput(ByteBuffer buf, int maxBuffer) {
        this.buf = buf;
        this.maxBuffer = maxBuffer;
    }

    public int readInt() throws IOException {
        try {
            return buf.getInt();
        } catch (BufferUnderflowException e) {
            throw new EOFException("truncated record: expected int");
        }
    }

    public long readLong() throws IOException {
        try {
            return buf.getLong();
        } catch (BufferUnderflowException e) {
            throw new EOFException("truncated record: expected long");
        }
    }

    public boolean readBool() throws IOException {
        if (!buf.hasRemaining()) {
            throw new EOFException("truncated record: expected boolean");
        }
        return buf.get() != 0;
    }

    public byte[] readBuffer() throws IOException {
        int len = readInt();
        if (len == -1) {
            return null;
        }
        if (len < -1 || len > maxBuffer || len > buf.remaining()) {
            throw new IOException("Unreasonable length = " + len + " (remaining " + buf.remaining()
                    + ", max " + maxBuffer + ")");
        }
        byte[] out = new byte[len];
        buf.get(out);
        return out;
    }

    public String readString() throws IOException {
        byte[] bytes = readBuffer();
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    public List<String> readStringList() throws IOException {
        int count = readInt();
        if (count == -1) {
            return null;
        }
        if (count < 0 || count > buf.remaining() / 4) {
            throw new IOException("Unreasonable list size = " + count);
        }
        List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(readString());
        }
        return out;
    }

    public boolean hasRemaining() {
        return buf.hasRemaining();
    }
}
