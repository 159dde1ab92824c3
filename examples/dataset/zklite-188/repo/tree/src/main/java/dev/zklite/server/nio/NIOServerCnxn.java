package dev.zklite.server.nio;

import dev.zklite.auth.AuthId;
import dev.zklite.auth.AuthenticationProvider;
import dev.zklite.auth.ProviderRegistry;
import dev.zklite.proto.ErrorCode;
import dev.zklite.proto.Headers;
import dev.zklite.proto.Headers.ReplyHeader;
import dev.zklite.proto.Headers.RequestHeader;
import dev.zklite.proto.OpCode;
import dev.zklite.proto.SessionHandshake.ConnectRequest;
import dev.zklite.proto.SessionHandshake.ConnectResponse;
import dev.zklite.proto.WatcherEvent;
import dev.zklite.proto.WireInput;
import dev.zklite.proto.WireOutput;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection. Reads happen on a worker thread while the selector has the key's
 * interest ops turned off; replies may be queued from any thread and are written by the
 * selector thread when the socket is writable.
 */
public class NIOServerCnxn implements FrameDecoder.Sink {

    private static final Logger LOG = LoggerFactory.getLogger(NIOServerCnxn.class);

    /** Why a connection was closed; logged and counted. */
    public enum DisconnectReason {
        CLIENT_CLOSED, SESSION_EXPIRED, CLOSE_SESSION_REQUEST, AUTH_FAILED, IO_EXCEPTION, SERVER_SHUTDOWN,
        SESSIONLESS_TIMEOUT, TOO_MANY_CONNECTIONS, FOUR_LETTER_WORD
    }

    private final NIOServerCnxnFactory factory;
    private final SocketChannel sock;
    private final SelectionKey key;
    private final NIOServerCnxnFactory.SelectorThread selectorThread;
    private final FrameDecoder decoder;
    private final ServerCnxnHandler handler;
    private final ProviderRegistry authProviders;
    private final Queue<ByteBuffer> outgoing = new ConcurrentLinkedQueue<>();
    private final List<AuthId> authInfo = new CopyOnWriteArrayList<>();
    private final AtomicInteger outstandingRequests = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong packetsReceived = new AtomicLong();
    private final AtomicLong packetsSent = new AtomicLong();
    private final int maxOutstanding;
    private final int maxBuffer;

    private volatile boolean initialized;
    private volatile long sessionId;
    private volatile int sessionTimeout;
    private volatile boolean throttled;
    private volatile long lastActivity = System.currentTimeMillis();

    NIOServerCnxn(NIOServerCnxnFactory factory, SocketChannel sock, SelectionKey key,
            NIOServerCnxnFactory.SelectorThread selectorThread) {
        this.factory = factory;
        this.sock = sock;
        this.key = key;
        this.selectorThread = selectorThread;
        this.handler = factory.handler();
        this.authProviders = factory.authProviders();
        this.maxBuffer = factory.maxBuffer();
        this.maxOutstanding = factory.maxOutstandingPerConnection();
        this.decoder = new FrameDecoder(maxBuffer);
        authInfo.add(new AuthId("ip", remoteAddress().getAddress().getHostAddress()));
    }

    /** Runs on a worker thread: reads every complete frame the socket has. */
    void doRead() {
        try {
            decoder.readFrom(sock, this);
            lastActivity = System.currentTimeMillis();
        } catch (IOException e) {
            if (decoder.inFrame()) {
                LOG.warn("Exception causing close of session 0x{}: {}", Long.toHexString(sessionId), e.getMessage());
            } else {
                LOG.debug("Client 0x{} closed its connection: {}", Long.toHexString(sessionId), e.getMessage());
            }
            close(DisconnectReason.IO_EXCEPTION);
        }
    }

    /** Runs on the selector thread when the socket is writable. */
    void doWrite() throws IOException {
        ByteBuffer head;
        while ((head = outgoing.peek()) != null) {
            sock.write(head);
            if (head.hasRemaining()) {
                return;
            }
            outgoing.remove();
            packetsSent.incrementAndGet();
        }
    }

    boolean hasPendingWrites() {
        return !outgoing.isEmpty();
    }

    @Override
    public void onFrame(ByteBuffer frame) throws IOException {
        packetsReceived.incrementAndGet();
        if (!initialized) {
            readConnectRequest(frame);
        } else {
            readRequest(frame);
        }
    }

    @Override
    public boolean onFourLetterWord(int word) {
        String cmd = FourLetterWords.name(word);
        if (!FourLetterWords.isEnabled(cmd, factory.fourLetterWhitelist())) {
            sendRaw(cmd + " is not executed because it is not in the whitelist.\n");
        } else {
            StringWriter text = new StringWriter();
            handler.fourLetterWord(cmd, new PrintWriter(text));
            sendRaw(text.toString());
        }
        LOG.debug("Processed four letter word {} from {}", cmd, remoteAddress());
        selectorThread.closeAfterFlush(this, DisconnectReason.FOUR_LETTER_WORD);
        return true;
    }

    private void readConnectRequest(ByteBuffer frame) throws IOException {
        ConnectRequest request = ConnectRequest.read(new WireInput(frame, maxBuffer));
        if (request.lastZxidSeen() > handler.lastProcessedZxid()) {
            // the client saw a newer state on another server; it must not go back in time here
            LOG.info("Refusing session request for client {} as it has seen zxid 0x{} our last zxid is 0x{}",
                    remoteAddress(), Long.toHexString(request.lastZxidSeen()),
                    Long.toHexString(handler.lastProcessedZxid()));
            close(DisconnectReason.CLIENT_CLOSED);
            return;
        }
        ConnectResponse response = handler.connect(this, request);
        WireOutput out = new WireOutput();
        response.write(out);
        enqueue(out.toFrame());
        if (response.isExpired()) {
            LOG.info("Invalid session 0x{} for client {}, probably expired", Long.toHexString(request.sessionId()),
                    remoteAddress());
            selectorThread.closeAfterFlush(this, DisconnectReason.SESSION_EXPIRED);
            return;
        }
        sessionId = response.sessionId();
        sessionTimeout = response.timeoutMs();
        initialized = true;
        factory.addSession(sessionId, this);
        LOG.info("Established session 0x{} with negotiated timeout {} for client {}", Long.toHexString(sessionId),
                sessionTimeout, remoteAddress());
    }

    private void readRequest(ByteBuffer frame) throws IOException {
        WireInput in = new WireInput(frame, maxBuffer);
        RequestHeader header = RequestHeader.read(in);
        if (header.op() == OpCode.AUTH) {
            readAuth(header, in);
            return;
        }
        if (outstandingRequests.incrementAndGet() > maxOutstanding) {
            disableRecv();
        }
        handler.submit(this, header, frame.slice());
    }

    private void readAuth(RequestHeader header, WireInput in) throws IOException {
        in.readInt(); // auth type, always 0
        String scheme = in.readString();
        byte[] credentials = in.readBuffer();
        AuthenticationProvider provider = authProviders.get(scheme);
        AuthId id = provider == null ? null : provider.authenticate(remoteAddress(), credentials);
        if (id == null) {
            LOG.warn("Authentication failed for scheme {} from {}", scheme, remoteAddress());
            sendResponse(new ReplyHeader(Headers.AUTH_XID, 0, ErrorCode.AUTH_FAILED), null);
            selectorThread.closeAfterFlush(this, DisconnectReason.AUTH_FAILED);
            return;
        }
        authInfo.add(id);
        sendResponse(new ReplyHeader(header.xid(), 0, ErrorCode.OK), null);
    }

    /**
     * Queues a reply. Called by the pipeline's last stage for every submitted request, in
     * request order; pings may overtake other requests.
     */
    public void sendResponse(ReplyHeader header, Consumer<WireOutput> body) {
        WireOutput out = new WireOutput();
        header.write(out);
        if (body != null && header.err() == ErrorCode.OK) {
            body.accept(out);
        }
        if (header.isPing()) {
            LOG.info("Ping 0x{} from {} -> {}", Long.toHexString(sessionId), remoteAddress(), header.err());
        }
        enqueue(out.toFrame());
        if (!header.isNotification() && header.xid() != Headers.AUTH_XID
                && outstandingRequests.decrementAndGet() < maxOutstanding && throttled) {
            enableRecv();
        }
        if (header.err() == ErrorCode.SESSION_EXPIRED) {
            selectorThread.closeAfterFlush(this, DisconnectReason.SESSION_EXPIRED);
        }
    }

    /** Pushes a watch notification. */
    public void sendNotification(WatcherEvent event) {
        WireOutput out = new WireOutput();
        new ReplyHeader(Headers.NOTIFICATION_XID, -1L, ErrorCode.OK).write(out);
        event.write(out);
        enqueue(out.toFrame());
    }

    private void sendRaw(String text) {
        enqueue(ByteBuffer.wrap(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    private void enqueue(ByteBuffer frame) {
        if (closed.get()) {
            return;
        }
        outgoing.add(frame);
        selectorThread.requestWrite(this);
    }

    private void disableRecv() {
        if (!throttled) {
            throttled = true;
            LOG.debug("Throttling recv for session 0x{}: {} requests outstanding", Long.toHexString(sessionId),
                    outstandingRequests.get());
            selectorThread.updateInterest(this);
        }
    }

    private void enableRecv() {
        throttled = false;
        selectorThread.updateInterest(this);
    }

    /** The interest ops the selector should use for this connection right now. */
    int interestOps() {
        int ops = throttled ? 0 : SelectionKey.OP_READ;
        if (hasPendingWrites()) {
            ops |= SelectionKey.OP_WRITE;
        }
        return ops;
    }

    /** Closes the socket and forgets the connection; safe to call more than once. */
    public void close(DisconnectReason reason) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        factory.removeCnxn(this);
        if (initialized && reason != DisconnectReason.CLOSE_SESSION_REQUEST
                && reason != DisconnectReason.SESSION_EXPIRED) {
            handler.disconnected(this);
        }
        key.cancel();
        try {
            sock.close();
        } catch (IOException e) {
            LOG.debug("Ignoring exception while closing socket of session 0x{}", Long.toHexString(sessionId), e);
        }
        LOG.info("Closed socket connection for client {} {}", remoteAddress(),
                sessionId != 0 ? "which had sessionid 0x" + Long.toHexString(sessionId) : "(no session established for client)");
        factory.disconnectCount(reason);
    }

    public boolean isClosed() {
        return closed.get();
    }

    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) sock.socket().getRemoteSocketAddress();
    }

    public long getSessionId() {
        return sessionId;
    }

    public int getSessionTimeout() {
        return sessionTimeout;
    }

    public List<AuthId> getAuthInfo() {
        return List.copyOf(authInfo);
    }

    public boolean isInitialized() {
        return initialized;
    }

    long lastActivity() {
        return lastActivity;
    }

    SelectionKey key() {
        return key;
    }

    SocketChannel socket() {
        return sock;
    }

    @Override
    public String toString() {
        return " " + remoteAddress() + "[" + (initialized ? 1 : 0) + "](queued=" + outstandingRequests.get()
                + ",recved=" + packetsReceived.get() + ",sent=" + packetsSent.get() + ",sid=0x"
                + Long.toHexString(sessionId) + ",lresp=" + lastActivity + ")";
    }
}
