package dev.zklite.client;

import dev.zklite.auth.AclEntry;
import dev.zklite.proto.CreateMode;
import dev.zklite.proto.ErrorCode;
import dev.zklite.proto.Headers;
import dev.zklite.proto.Headers.ReplyHeader;
import dev.zklite.proto.Headers.RequestHeader;
import dev.zklite.proto.OpCode;
import dev.zklite.proto.PathUtils;
import dev.zklite.proto.SessionHandshake;
import dev.zklite.proto.SessionHandshake.ConnectRequest;
import dev.zklite.proto.SessionHandshake.ConnectResponse;
import dev.zklite.proto.Stat;
import dev.zklite.proto.WatcherEvent;
import dev.zklite.proto.WatcherEvent.EventType;
import dev.zklite.proto.WatcherEvent.KeeperState;
import dev.zklite.proto.WireInput;
import dev.zklite.proto.WireOutput;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client: one session, kept alive across connections to any server of the ensemble.
 *
 * <p>A connection thread connects, performs the handshake and writes requests and pings; a
 * reader thread per connection reads replies, which arrive in request order except for
 * pings and notifications. When the connection breaks, every pending request fails with
 * CONNECTION_LOSS and the client reconnects with the same session id until the server says
 * the session is expired.
 */
public class ZkLiteClient implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ZkLiteClient.class);
    private static final int MAX_BUFFER = 4 * 1024 * 1024;

    public enum State {
        CONNECTING, CONNECTED, CLOSED, AUTH_FAILED, EXPIRED;

        public boolean isAlive() {
            return this == CONNECTING || this == CONNECTED;
        }
    }

    /** Decodes the body of a successful reply. */
    @FunctionalInterface
    interface ReplyReader<T> {
        T read(WireInput in) throws IOException;
    }

    private static final class Packet {
        final RequestHeader header;
        final Consumer<WireOutput> body;
        final ReplyReader<?> reader;
        final CompletableFuture<Object> result = new CompletableFuture<>();
        final String path;
        final Runnable onSuccess;

        Packet(RequestHeader header, Consumer<WireOutput> body, ReplyReader<?> reader, String path, Runnable onSuccess) {
            this.header = header;
            this.body = body;
            this.reader = reader;
            this.path = path;
            this.onSuccess = onSuccess;
        }
    }

    private final HostProvider hosts;
    private final int requestedTimeoutMs;
    private final ClientWatchManager watches;
    private final LinkedBlockingQueue<Packet> outgoing = new LinkedBlockingQueue<>();
    private final ConcurrentLinkedDeque<Packet> pending = new ConcurrentLinkedDeque<>();
    private final AtomicInteger nextXid = new AtomicInteger(1);
    private final ExecutorService eventThread;
    private final Thread connectionThread;

    private volatile State state = State.CONNECTING;
    private volatile long sessionId;
    private volatile byte[] password = new byte[SessionHandshake.PASSWORD_LENGTH];
    private volatile int negotiatedTimeoutMs;
    private volatile long lastZxid;
    private volatile long lastHeardNs;
    private volatile long pingSentNs;
    private volatile Socket socket;

    public ZkLiteClient(String connectString, int sessionTimeoutMs, Watcher defaultWatcher) {
        this.hosts = new HostProvider(HostProvider.parse(connectString), System.nanoTime());
        this.requestedTimeoutMs = sessionTimeoutMs;
        this.watches = new ClientWatchManager(defaultWatcher);
        this.eventThread = Executors.newSingleThreadExecutor(r -> daemon(r, "zklite-event"));
        this.connectionThread = daemon(this::connectionLoop, "zklite-send");
        connectionThread.start();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    public State getState() {
        return state;
    }

    public long getSessionId() {
        return sessionId;
    }

    public String create(String path, byte[] data, List<AclEntry> acl, CreateMode mode)
            throws ClientException, InterruptedException {
        PathUtils.validatePath(path, mode.isSequential());
        return submit(OpCode.CREATE, path, out -> {
            out.writeString(path).writeBuffer(data).writeInt(acl.size());
            for (AclEntry e : acl) {
                out.writeInt(e.perms()).writeString(e.scheme()).writeString(e.id());
            }
            out.writeInt(mode.flag());
        }, WireInput::readString, null);
    }

    public void delete(String path, int version) throws ClientException, InterruptedException {
        PathUtils.validatePath(path);
        submit(OpCode.DELETE, path, out -> out.writeString(path).writeInt(version), in -> null, null);
    }

    /** The node's stat, or null if it does not exist; the watch is set in both cases. */
    public Stat exists(String path, Watcher watcher) throws ClientException, InterruptedException {
        PathUtils.validatePath(path);
        try {
            return submit(OpCode.EXISTS, path, out -> out.writeString(path).writeBool(watcher != null), Stat::read,
                    watcher == null ? null : () -> watches.addDataWatch(path, watcher));
        } catch (ClientException e) {
            if (e.code() != ErrorCode.NO_NODE) {
                throw e;
            }
            if (watcher != null) {
                watches.addExistWatch(path, watcher);
            }
            return null;
        }
    }

    public byte[] getData(String path, Watcher watcher) throws ClientException, InterruptedException {
        PathUtils.validatePath(path);
        return submit(OpCode.GET_DATA, path, out -> out.writeString(path).writeBool(watcher != null),
                WireInput::readBuffer, watcher == null ? null : () -> watches.addDataWatch(path, watcher));
    }

    public Stat setData(String path, byte[] data, int version) throws ClientException, InterruptedException {
        PathUtils.validatePath(path);
        return submit(OpCode.SET_DATA, path, out -> out.writeString(path).writeBuffer(data).writeInt(version),
                Stat::read, null);
    }

    public List<String> getChildren(String path, Watcher watcher) throws ClientException, InterruptedException {
        PathUtils.validatePath(path);
        return submit(OpCode.GET_CHILDREN, path, out -> out.writeString(path).writeBool(watcher != null),
                WireInput::readStringList, watcher == null ? null : () -> watches.addChildWatch(path, watcher));
    }

    @SuppressWarnings("unchecked")
    private <T> T submit(OpCode op, String path, Consumer<WireOutput> body, ReplyReader<T> reader, Runnable onSuccess)
            throws ClientException, InterruptedException {
        if (!state.isAlive()) {
            throw new ClientException(state == State.EXPIRED ? ErrorCode.SESSION_EXPIRED : ErrorCode.CONNECTION_LOSS, path);
        }
        Packet packet = new Packet(new RequestHeader(nextXid.getAndIncrement(), op), body, reader, path, onSuccess);
        outgoing.add(packet);
        try {
            return (T) packet.result.get(requestedTimeoutMs * 2L, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ClientException ce) {
                throw ce;
            }
            throw new ClientException(ErrorCode.MARSHALLING_ERROR, path);
        } catch (TimeoutException e) {
            throw new ClientException(ErrorCode.REQUEST_TIMEOUT, path);
        }
    }

    /** Connects, sends, pings; on any I/O error fails pending requests and reconnects. */
    private void connectionLoop() {
        while (state.isAlive()) {
            try {
                connect(hosts.next(1000));
                sendLoop();
            } catch (InterruptedException e) {
                break;
            } catch (IOException e) {
                if (state.isAlive()) {
                    LOG.info("{}, closing socket connection and attempting reconnect", e.getMessage());
                }
            }
            cleanup();
        }
        cleanup();
    }

    private void connect(InetSocketAddress addr) throws IOException {
        LOG.info("Opening socket connection to server {}", addr);
        Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.connect(addr, requestedTimeoutMs / hosts.size());
        socket = s;
        WireOutput out = new WireOutput();
        new ConnectRequest(SessionHandshake.PROTOCOL_VERSION, lastZxid, requestedTimeoutMs, sessionId, password, false)
                .write(out);
        write(out);
        s.setSoTimeout(requestedTimeoutMs);
        ConnectResponse response = ConnectResponse.read(new WireInput(readFrame(new DataInputStream(s.getInputStream())),
                MAX_BUFFER));
        if (response.isExpired()) {
            LOG.warn("Unable to reconnect to zklite service, session 0x{} has expired", Long.toHexString(sessionId));
            expire();
            throw new IOException("session expired");
        }
        boolean newSession = sessionId == 0;
        sessionId = response.sessionId();
        password = response.password();
        negotiatedTimeoutMs = response.timeoutMs();
        lastHeardNs = System.nanoTime();
        state = State.CONNECTED;
        hosts.onConnected();
        LOG.info("Session establishment complete on server {}, session id = 0x{}, negotiated timeout = {}", addr,
                Long.toHexString(sessionId), negotiatedTimeoutMs);
        if (!newSession) {
            reRegisterWatches();
        }
        queueEvent(new WatcherEvent(EventType.NONE, KeeperState.SYNC_CONNECTED, null));
        daemon(() -> readLoop(s), "zklite-read").start();
    }

    private void sendLoop() throws IOException, InterruptedException {
        // ping at a third of the timeout, give up on the server after two thirds
        long readTimeoutNs = TimeUnit.MILLISECONDS.toNanos(negotiatedTimeoutMs * 2L / 3);
        long pingIntervalMs = Math.max(1, negotiatedTimeoutMs / 3);
        while (state == State.CONNECTED && socket != null && !socket.isClosed()) {
            Packet packet = outgoing.poll(pingIntervalMs, TimeUnit.MILLISECONDS);
            if (System.nanoTime() - lastHeardNs > readTimeoutNs) {
                throw new IOException("Client session timed out, have not heard from server in "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastHeardNs) + "ms for session id 0x"
                        + Long.toHexString(sessionId));
            }
            if (packet == null) {
                sendPing();
                continue;
            }
            WireOutput out = new WireOutput();
            packet.header.write(out);
            packet.body.accept(out);
            pending.add(packet);
            write(out);
        }
    }

    private void sendPing() throws IOException {
        WireOutput out = new WireOutput();
        new RequestHeader(Headers.PING_XID, OpCode.PING).write(out);
        pingSentNs = System.nanoTime();
        write(out);
    }

    private void reRegisterWatches() throws IOException {
        List<List<String>> paths = watches.pathsToReRegister();
        if (paths.stream().allMatch(List::isEmpty)) {
            return;
        }
        WireOutput out = new WireOutput();
        new RequestHeader(Headers.SET_WATCHES_XID, OpCode.SET_WATCHES).write(out);
        out.writeLong(lastZxid).writeStringList(paths.get(0)).writeStringList(paths.get(1))
                .writeStringList(paths.get(2));
        write(out);
    }

    private synchronized void write(WireOutput out) throws IOException {
        ByteBuffer frame = out.toFrame();
        OutputStream os = socket.getOutputStream();
        os.write(frame.array(), 0, frame.limit());
        os.flush();
    }

    private static ByteBuffer readFrame(DataInputStream in) throws IOException {
        int len = in.readInt();
        if (len < 0 || len > MAX_BUFFER) {
            throw new IOException("Packet len " + len + " is out of range!");
        }
        byte[] bytes = new byte[len];
        in.readFully(bytes);
        return ByteBuffer.wrap(bytes);
    }

    private void readLoop(Socket s) {
        try {
            DataInputStream in = new DataInputStream(s.getInputStream());
            s.setSoTimeout(0);
            while (!s.isClosed()) {
                WireInput reply = new WireInput(readFrame(in), MAX_BUFFER);
                lastHeardNs = System.nanoTime();
                handleReply(ReplyHeader.read(reply), reply);
            }
        } catch (SocketTimeoutException e) {
            LOG.debug("read timed out on session 0x{}", Long.toHexString(sessionId));
        } catch (IOException e) {
            LOG.debug("reader of session 0x{} stopped: {}", Long.toHexString(sessionId), e.getMessage());
        }
        closeSocket(s);
    }

    private void handleReply(ReplyHeader header, WireInput body) throws IOException {
        if (header.isPing()) {
            onPingReply(header);
            return;
        }
        if (header.isNotification()) {
            queueEvent(WatcherEvent.read(body));
            return;
        }
        if (header.xid() == Headers.SET_WATCHES_XID || header.xid() == Headers.AUTH_XID) {
            if (header.err() == ErrorCode.AUTH_FAILED) {
                state = State.AUTH_FAILED;
                queueEvent(new WatcherEvent(EventType.NONE, KeeperState.AUTH_FAILED, null));
            }
            return;
        }
        Packet packet = pending.poll();
        if (packet == null || packet.header.xid() != header.xid()) {
            throw new IOException("Xid out of order. Got Xid " + header.xid() + " with err " + header.err()
                    + " expected Xid " + (packet == null ? "none" : packet.header.xid()));
        }
        if (header.zxid() > 0) {
            lastZxid = header.zxid();
        }
        if (header.err() != ErrorCode.OK) {
            packet.result.completeExceptionally(new ClientException(header.err(), packet.path));
            return;
        }
        Object value = packet.reader.read(body);
        if (packet.onSuccess != null) {
            packet.onSuccess.run();
        }
        packet.result.complete(value);
    }

    private void onPingReply(ReplyHeader header) {
        long latencyMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pingSentNs);
        if (header.err() == ErrorCode.SESSION_EXPIRED) {
            LOG.warn("session 0x{} expired (SESSION_EXPIRED on ping)", Long.toHexString(sessionId));
            expire();
            return;
        }
        LOG.debug("ping ok (latency {} ms) session=0x{}", latencyMs, Long.toHexString(sessionId));
    }

    private void expire() {
        state = State.EXPIRED;
        queueEvent(new WatcherEvent(EventType.NONE, KeeperState.EXPIRED, null));
        closeSocket(socket);
    }

    private void queueEvent(WatcherEvent event) {
        for (Watcher w : watches.materialize(event)) {
            eventThread.execute(() -> {
                try {
                    w.process(event);
                } catch (RuntimeException e) {
                    LOG.error("Error while calling watcher", e);
                }
            });
        }
    }

    /** Fails every request that was sent or queued on the broken connection. */
    private void cleanup() {
        closeSocket(socket);
        ErrorCode code = state == State.EXPIRED ? ErrorCode.SESSION_EXPIRED : ErrorCode.CONNECTION_LOSS;
        Packet p;
        while ((p = pending.poll()) != null) {
            p.result.completeExceptionally(new ClientException(code, p.path));
        }
        while ((p = outgoing.poll()) != null) {
            p.result.completeExceptionally(new ClientException(code, p.path));
        }
        if (state == State.CONNECTED) {
            state = State.CONNECTING;
            queueEvent(new WatcherEvent(EventType.NONE, KeeperState.DISCONNECTED, null));
        }
    }

    private void closeSocket(Socket s) {
        if (s == null) {
            return;
        }
        try {
            s.close();
        } catch (IOException e) {
            LOG.debug("Ignoring exception during socket close", e);
        }
    }

    /** Closes the session on the server (best effort) and stops all threads. */
    @Override
    public void close() throws InterruptedException {
        if (state == State.CONNECTED) {
            try {
                submit(OpCode.CLOSE_SESSION, null, out -> { }, in -> null, null);
            } catch (ClientException e) {
                LOG.debug("closeSession for 0x{} failed: {}", Long.toHexString(sessionId), e.code());
            }
        }
        state = State.CLOSED;
        connectionThread.interrupt();
        connectionThread.join(TimeUnit.SECONDS.toMillis(2));
        queueEvent(new WatcherEvent(EventType.NONE, KeeperState.CLOSED, null));
        eventThread.shutdown();
        LOG.info("Session: 0x{} closed", Long.toHexString(sessionId));
    }
}
