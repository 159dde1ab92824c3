package dev.zklite.server.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrameDecoderTest {

    private final List<ByteBuffer> frames = new ArrayList<>();
    private final List<String> words = new ArrayList<>();

    private final FrameDecoder.Sink sink = new FrameDecoder.Sink() {
        @Override
        public void onFrame(ByteBuffer frame) {
            frames.add(frame);
        }

        @Override
        public boolean onFourLetterWord(int word) {
            words.add(FourLetterWords.name(word));
            return true;
        }
    };

    private static ReadableByteChannel channel(byte[] bytes) {
        return Channels.newChannel(new ByteArrayInputStream(bytes));
    }

    @Test
    void decodesTwoFramesFromOneRead() throws IOException {
        ByteBuffer in = ByteBuffer.allocate(14).putInt(2).put(new byte[] {1, 2}).putInt(4).putInt(42);
        FrameDecoder decoder = new FrameDecoder(1024);
        assertThrows(java.io.EOFException.class, () -> decoder.readFrom(channel(in.array()), sink));
        assertEquals(2, frames.size());
        assertEquals(42, frames.get(1).getInt());
    }

    @Test
    void rejectsOversizedLength() {
        byte[] in = ByteBuffer.allocate(4).putInt(1 << 20).array();
        IOException e = assertThrows(IOException.class, () -> new FrameDecoder(1024).readFrom(channel(in), sink));
        assertTrue(e.getMessage().startsWith("Len error"));
    }

    @Test
    void recognizesFourLetterWordAtStart() throws IOException {
        new FrameDecoder(1024).readFrom(channel("ruok".getBytes()), sink);
        assertEquals(List.of("ruok"), words);
    }
}
