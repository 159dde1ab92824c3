package dev.zklite.server.nio;

import dev.zklite.proto.Headers.RequestHeader;
import dev.zklite.proto.SessionHandshake.ConnectRequest;
import dev.zklite.proto.SessionHandshake.ConnectResponse;
import java.io.PrintWriter;
import java.nio.ByteBuffer;

/**
 * What the network layer needs from the server: session handshakes, requests and admin
 * words. Implemented by the server wiring; the connection never touches the tree itself.
 */
public interface ServerCnxnHandler {

    /**
     * Creates or re-attaches a session. Runs on a worker thread.
     *
     * @return the response to send; {@link ConnectResponse#expired()} closes the connection
     */
    ConnectResponse connect(NIOServerCnxn cnxn, ConnectRequest request);

    /**
     * Hands a request to the pipeline. The reply comes back later through
     * {@link NIOServerCnxn#sendResponse}, possibly on another thread.
     */
    void submit(NIOServerCnxn cnxn, RequestHeader header, ByteBuffer body);

    /** The connection of a session went away without a closeSession request. */
    void disconnected(NIOServerCnxn cnxn);

    /** Writes the answer to a four-letter admin word. */
    void fourLetterWord(String word, PrintWriter out);

    /** The last zxid applied, for reply headers of locally answered requests. */
    long lastProcessedZxid();
}
