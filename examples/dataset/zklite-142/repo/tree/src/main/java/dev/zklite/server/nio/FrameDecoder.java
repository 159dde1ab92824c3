package dev.zklite.server.nio;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * Splits the byte stream of a connection into frames: a four-byte big-endian length, then
 * that many bytes. Reads are non-blocking, so a frame may arrive over several calls.
 *
 * <p>The very first length of a connection may instead be one of the four-letter admin
 * words ("ruok", "stat", ...); the decoder reports it separately and reads nothing more.
 */
public final class FrameDecoder {

    /** Receives decoded frames. */
    public interface Sink {
        void onFrame(ByteBuffer frame) throws IOException;

        /** @return true if the word was handled and the connection should stop reading */
        boolean onFourLetterWord(int word) throws IOException;
    }

    private final ByteBuffer lenBuffer = ByteBuffer.allocate(4);
    private final int maxBuffer;
    private ByteBuffer incoming;
    private boolean firstFrame = true;

    public FrameDecoder(int maxBuffer) {
        this.maxBuffer = maxBuffer;
    }

    /**
     * Reads what the channel has and hands every complete frame to the sink.
     *
     * @return the number of frames decoded
     * @throws EOFException when the peer closed the connection
     * @throws IOException for a frame length outside [0, maxBuffer]
     */
    public int readFrom(ReadableByteChannel channel, Sink sink) throws IOException {
        int frames = 0;
        while (true) {
            if (incoming == null) {
                int n = channel.read(lenBuffer);
                if (n < 0) {
                    throw new EOFException("Unable to read additional data from client, it probably closed the socket");
                }
                if (lenBuffer.hasRemaining()) {
                    return frames;
                }
                lenBuffer.flip();
                int len = lenBuffer.getInt();
                lenBuffer.clear();
                if (firstFrame && FourLetterWords.isKnown(len)) {
                    firstFrame = false;
                    if (sink.onFourLetterWord(len)) {
                        return frames;
                    }
                    continue;
                }
                firstFrame = false;
                incoming = ByteBuffer.allocate(checkLength(len));
            }
            int n = channel.read(incoming);
            if (n < 0) {
                throw new EOFException("Connection closed in the middle of a frame");
            }
            if (incoming.hasRemaining()) {
                return frames;
            }
            ByteBuffer frame = incoming;
            incoming = null;
            frame.flip();
            sink.onFrame(frame);
            frames++;
        }
    }

    private int checkLength(int len) throws IOException {
        if (len < 0 || len > maxBuffer) {
            throw new IOException("Len error " + len + " (max " + maxBuffer + ")");
        }
        return len;
    }

    /** Whether a frame is partially read; used to tell a clean close from a torn one. */
    public boolean inFrame() {
        return incoming != null || lenBuffer.position() > 0;
    }
}
