package dev.zklite.server.nio;

import dev.zklite.auth.ProviderRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts client connections and runs their I/O: one accept thread, a few selector threads
 * that own the sockets, and a pool of worker threads that decode frames and call into the
 * server. Limits connections per client IP and closes connections that never establish a
 * session.
 */
public class NIOServerCnxnFactory {

    private static final Logger LOG = LoggerFactory.getLogger(NIOServerCnxnFactory.class);

    /** Settings of the client port; see ServerConfig for their defaults. */
    public record Settings(InetSocketAddress address, int maxClientCnxns, int maxBuffer, int selectorThreads,
            int workerThreads, int maxOutstandingPerConnection, long sessionlessCnxnTimeoutMs,
            Set<String> fourLetterWhitelist) {
    }

    private final Settings settings;
    private final ServerCnxnHandler handler;
    private final ProviderRegistry authProviders;
    private final ServerSocketChannel serverSocket;
    private final Map<InetAddress, Set<NIOServerCnxn>> ipMap = new ConcurrentHashMap<>();
    private final Map<Long, NIOServerCnxn> sessionMap = new ConcurrentHashMap<>();
    private final Set<NIOServerCnxn> cnxns = ConcurrentHashMap.newKeySet();
    private final Map<NIOServerCnxn.DisconnectReason, AtomicLong> disconnects =
            new EnumMap<>(NIOServerCnxn.DisconnectReason.class);
    private final List<SelectorThread> selectorThreads = new ArrayList<>();
    private final ExecutorService workerPool;
    private final AcceptThread acceptThread;
    private volatile boolean stopped;

    public NIOServerCnxnFactory(Settings settings, ServerCnxnHandler handler, ProviderRegistry authProviders)
            throws IOException {
        this.settings = settings;
        this.handler = handler;
        this.authProviders = authProviders;
        for (NIOServerCnxn.DisconnectReason r : NIOServerCnxn.DisconnectReason.values()) {
            disconnects.put(r, new AtomicLong());
        }
        AtomicInteger workerIds = new AtomicInteger();
        this.workerPool = Executors.newFixedThreadPool(settings.workerThreads(), r -> {
            Thread t = new Thread(r, "NIOWorkerThread-" + workerIds.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        for (int i = 0; i < settings.selectorThreads(); i++) {
            selectorThreads.add(new SelectorThread(i));
        }
        this.serverSocket = ServerSocketChannel.open();
        serverSocket.socket().setReuseAddress(true);
        LOG.info("binding to port {}", settings.address());
        serverSocket.socket().bind(settings.address());
        serverSocket.configureBlocking(false);
        this.acceptThread = new AcceptThread();
    }

    public void start() {
        for (SelectorThread t : selectorThreads) {
            t.start();
        }
        acceptThread.start();
    }

    public void shutdown() {
        stopped = true;
        acceptThread.wakeup();
        for (SelectorThread t : selectorThreads) {
            t.wakeup();
        }
        for (NIOServerCnxn cnxn : new ArrayList<>(cnxns)) {
            cnxn.close(NIOServerCnxn.DisconnectReason.SERVER_SHUTDOWN);
        }
        workerPool.shutdown();
        try {
            if (!workerPool.awaitTermination(5, TimeUnit.SECONDS)) {
                workerPool.shutdownNow();
            }
            serverSocket.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            LOG.warn("Error closing the server socket", e);
        }
    }

    ServerCnxnHandler handler() {
        return handler;
    }

    ProviderRegistry authProviders() {
        return authProviders;
    }

    int maxBuffer() {
        return settings.maxBuffer();
    }

    int maxOutstandingPerConnection() {
        return settings.maxOutstandingPerConnection();
    }

    Set<String> fourLetterWhitelist() {
        return settings.fourLetterWhitelist();
    }

    void addSession(long sessionId, NIOServerCnxn cnxn) {
        NIOServerCnxn previous = sessionMap.put(sessionId, cnxn);
        if (previous != null && previous != cnxn) {
            // the client moved to a new connection; the old one must not answer for the session
            previous.close(NIOServerCnxn.DisconnectReason.CLIENT_CLOSED);
        }
    }

    void removeCnxn(NIOServerCnxn cnxn) {
        cnxns.remove(cnxn);
        sessionMap.remove(cnxn.getSessionId(), cnxn);
        InetAddress addr = cnxn.remoteAddress() == null ? null : cnxn.remoteAddress().getAddress();
        if (addr != null) {
            Set<NIOServerCnxn> set = ipMap.get(addr);
            if (set != null) {
                set.remove(cnxn);
            }
        }
    }

    void disconnectCount(NIOServerCnxn.DisconnectReason reason) {
        disconnects.get(reason).incrementAndGet();
    }

    /** Closes the connection of a session that was closed or expired. */
    public boolean closeSession(long sessionId, NIOServerCnxn.DisconnectReason reason) {
        NIOServerCnxn cnxn = sessionMap.remove(sessionId);
        if (cnxn == null) {
            return false;
        }
        cnxn.close(reason);
        return true;
    }

    public NIOServerCnxn connectionOf(long sessionId) {
        return sessionMap.get(sessionId);
    }

    public int connectionCount() {
        return cnxns.size();
    }

    private int connectionsFrom(InetAddress addr) {
        Set<NIOServerCnxn> set = ipMap.get(addr);
        return set == null ? 0 : set.size();
    }

    /** The "cons" admin word. */
    public void dumpConnections(PrintWriter out) {
        for (NIOServerCnxn cnxn : cnxns) {
            out.println(cnxn);
        }
        out.println();
    }

    /** Closed connections by reason, for the "mntr" word. */
    public long disconnects(NIOServerCnxn.DisconnectReason reason) {
        return disconnects.get(reason).get();
    }

    /** Accepts sockets and hands them to the selector threads round-robin. */
    private final class AcceptThread extends Thread {
        private final Selector selector;
        private int next;

        AcceptThread() throws IOException {
            super("NIOServerCxnFactory.AcceptThread:" + settings.address());
            setDaemon(true);
            selector = Selector.open();
            serverSocket.register(selector, SelectionKey.OP_ACCEPT);
        }

        void wakeup() {
            selector.wakeup();
        }

        @Override
        public void run() {
            while (!stopped && !serverSocket.socket().isClosed()) {
                try {
                    selector.select(1000);
                    Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                    while (it.hasNext()) {
                        it.next();
                        it.remove();
                        acceptOne();
                    }
                } catch (IOException e) {
                    LOG.warn("Ignoring unexpected exception in accept loop", e);
                }
            }
            LOG.info("accept thread exited run method");
        }

        private void acceptOne() {
            SocketChannel sc = null;
            try {
                sc = serverSocket.accept();
                if (sc == null) {
                    return;
                }
                InetAddress ia = sc.socket().getInetAddress();
                int count = connectionsFrom(ia);
                if (settings.maxClientCnxns() > 0 && count >= settings.maxClientCnxns()) {
                    disconnectCount(NIOServerCnxn.DisconnectReason.TOO_MANY_CONNECTIONS);
                    throw new IOException("Too many connections from " + ia + " - max is " + settings.maxClientCnxns());
                }
                sc.configureBlocking(false);
                sc.socket().setTcpNoDelay(true);
                SelectorThread target = selectorThreads.get(next++ % selectorThreads.size());
                target.addAcceptedConnection(sc);
            } catch (IOException e) {
                LOG.warn("Error accepting new connection: {}", e.getMessage());
                if (sc != null) {
                    try {
                        sc.close();
                    } catch (IOException ignored) {
                        // nothing more to do for a socket we never used
                    }
                }
            }
        }
    }

    /**
     * Owns a set of sockets. While a worker reads a connection, the key's interest ops are
     * zero so the selector does not hand the same connection to a second worker.
     */
    final class SelectorThread extends Thread {
        private final Selector selector;
        private final Queue<SocketChannel> acceptedQueue = new ConcurrentLinkedQueue<>();
        private final Queue<NIOServerCnxn> updateQueue = new ConcurrentLinkedQueue<>();
        private final Map<NIOServerCnxn, NIOServerCnxn.DisconnectReason> closeAfterFlush = new ConcurrentHashMap<>();

        SelectorThread(int id) throws IOException {
            super("NIOServerCxnFactory.SelectorThread-" + id);
            setDaemon(true);
            selector = Selector.open();
        }

        void wakeup() {
            selector.wakeup();
        }

        void addAcceptedConnection(SocketChannel sc) {
            acceptedQueue.add(sc);
            selector.wakeup();
        }

        void updateInterest(NIOServerCnxn cnxn) {
            updateQueue.add(cnxn);
            selector.wakeup();
        }

        void requestWrite(NIOServerCnxn cnxn) {
            updateInterest(cnxn);
        }

        void closeAfterFlush(NIOServerCnxn cnxn, NIOServerCnxn.DisconnectReason reason) {
            closeAfterFlush.put(cnxn, reason);
            updateInterest(cnxn);
        }

        @Override
        public void run() {
            while (!stopped) {
                try {
                    selector.select(1000);
                    processReadyKeys();
                    registerAccepted();
                    processInterestUpdates();
                    expireSessionlessConnections();
                } catch (IOException | RuntimeException e) {
                    LOG.warn("Ignoring unexpected exception in selector loop", e);
                }
            }
            LOG.info("selector thread exited run method");
        }

        private void processReadyKeys() {
            Iterator<SelectionKey> it = selector.selectedKeys().iterator();
            while (it.hasNext()) {
                SelectionKey key = it.next();
                it.remove();
                NIOServerCnxn cnxn = (NIOServerCnxn) key.attachment();
                if (!key.isValid()) {
                    cnxn.close(NIOServerCnxn.DisconnectReason.IO_EXCEPTION);
                    continue;
                }
                try {
                    if (key.isWritable()) {
                        cnxn.doWrite();
                        maybeCloseAfterFlush(cnxn);
                    }
                    if (key.isValid() && key.isReadable()) {
                        key.interestOps(0);
                        workerPool.execute(() -> {
                            cnxn.doRead();
                            updateInterest(cnxn);
                        });
                    }
                } catch (IOException | CancelledKeyException e) {
                    cnxn.close(NIOServerCnxn.DisconnectReason.IO_EXCEPTION);
                }
            }
        }

        private void registerAccepted() {
            SocketChannel sc;
            while ((sc = acceptedQueue.poll()) != null) {
                try {
                    SelectionKey key = sc.register(selector, SelectionKey.OP_READ);
                    NIOServerCnxn cnxn = new NIOServerCnxn(NIOServerCnxnFactory.this, sc, key, this);
                    key.attach(cnxn);
                    cnxns.add(cnxn);
                    ipMap.computeIfAbsent(sc.socket().getInetAddress(), a -> ConcurrentHashMap.newKeySet()).add(cnxn);
                } catch (IOException e) {
                    LOG.warn("Could not register accepted connection", e);
                }
            }
        }

        private void processInterestUpdates() {
            NIOServerCnxn cnxn;
            while ((cnxn = updateQueue.poll()) != null) {
                SelectionKey key = cnxn.key();
                if (cnxn.isClosed() || !key.isValid()) {
                    continue;
                }
                if (maybeCloseAfterFlush(cnxn)) {
                    continue;
                }
                try {
                    key.interestOps(cnxn.interestOps());
                } catch (CancelledKeyException e) {
                    cnxn.close(NIOServerCnxn.DisconnectReason.IO_EXCEPTION);
                }
            }
        }

        private boolean maybeCloseAfterFlush(NIOServerCnxn cnxn) {
            NIOServerCnxn.DisconnectReason reason = closeAfterFlush.get(cnxn);
            if (reason == null || cnxn.hasPendingWrites()) {
                return false;
            }
            closeAfterFlush.remove(cnxn);
            cnxn.close(reason);
            return true;
        }

        private void expireSessionlessConnections() {
            long deadline = System.currentTimeMillis() - settings.sessionlessCnxnTimeoutMs();
            for (SelectionKey key : selector.keys()) {
                NIOServerCnxn cnxn = (NIOServerCnxn) key.attachment();
                if (cnxn != null && !cnxn.isInitialized() && cnxn.lastActivity() < deadline) {
                    LOG.debug("Closing connection from {}: no session after {} ms", cnxn.remoteAddress(),
                            settings.sessionlessCnxnTimeoutMs());
                    cnxn.close(NIOServerCnxn.DisconnectReason.SESSIONLESS_TIMEOUT);
                }
            }
        }
    }
}
