package dev.zklite.server;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request pipeline in one stage: requests are applied to the tree in order, each with a
 * new zxid. A ping touches the session; a closeSession kills its ephemerals.
 */
public class RequestProcessor extends Thread implements SessionTracker.SessionExpirer {

    private static final Logger LOG = LoggerFactory.getLogger(RequestProcessor.class);

    public enum OpCode { CREATE, DELETE, PING, CLOSE_SESSION }

    public static final class Request {
        final long sessionId;
        final OpCode op;
        final String path;
        final byte[] data;
        final boolean ephemeral;
        final ResponseCallback callback;

        public Request(long sessionId, OpCode op, String path, byte[] data, boolean ephemeral,
                ResponseCallback callback) {
            this.sessionId = sessionId;
            this.op = op;
            this.path = path;
            this.data = data;
            this.ephemeral = ephemeral;
            this.callback = callback;
        }
    }

    public interface ResponseCallback {
        void done(int rc, String detail);
    }

    public static final int OK = 0;
    public static final int SESSION_EXPIRED = -112;
    public static final int NODE_EXISTS = -110;

    private final LinkedBlockingQueue<Request> queue = new LinkedBlockingQueue<>();
    private final AtomicLong zxid = new AtomicLong(0x100000000L);
    private final DataTree tree;
    private final long serverId;
    private SessionTrackerImpl sessionTracker;

    public RequestProcessor(DataTree tree, long serverId) {
        super("RequestProcessor");
        this.tree = tree;
        this.serverId = serverId;
    }

    public void setSessionTracker(SessionTrackerImpl sessionTracker) {
        this.sessionTracker = sessionTracker;
    }

    public void submit(Request request) {
        queue.add(request);
    }

    @Override
    public void expire(SessionTracker.Session session) {
        LOG.info("Expiring session 0x{}, timeout of {}ms exceeded", Long.toHexString(session.getSessionId()),
                session.getTimeout());
        submit(new Request(session.getSessionId(), OpCode.CLOSE_SESSION, null, null, false, (rc, d) -> { }));
    }

    @Override
    public long getServerId() {
        return serverId;
    }

    @Override
    public void run() {
        try {
            while (true) {
                process(queue.take());
            }
        } catch (InterruptedException e) {
            LOG.info("RequestProcessor exited");
        }
    }

    void process(Request request) {
        long txnZxid = zxid.incrementAndGet();
        switch (request.op) {
            case PING:
                if (sessionTracker.touchSession(request.sessionId, sessionTimeout(request.sessionId))) {
                    request.callback.done(OK, "pong");
                } else {
                    request.callback.done(SESSION_EXPIRED, "session expired");
                }
                return;
            case CLOSE_SESSION:
                LOG.info("Processing closeSession for 0x{} zxid 0x{}", Long.toHexString(request.sessionId),
                        Long.toHexString(txnZxid));
                tree.killSession(request.sessionId, txnZxid);
                sessionTracker.removeSession(request.sessionId);
                request.callback.done(OK, "closed");
                return;
            case CREATE:
                try {
                    sessionTracker.checkSession(request.sessionId);
                    tree.createNode(request.path, request.data, request.ephemeral ? request.sessionId : 0, txnZxid);
                    request.callback.done(OK, request.path);
                } catch (SessionExpiredException e) {
                    request.callback.done(SESSION_EXPIRED, e.getMessage());
                } catch (DataTree.NodeExistsException e) {
                    request.callback.done(NODE_EXISTS, e.getMessage());
                }
                return;
            case DELETE:
                tree.deleteNode(request.path, txnZxid);
                request.callback.done(OK, request.path);
                return;
            default:
                LOG.warn("Unknown op {}", request.op);
        }
    }

    private int sessionTimeout(long sessionId) {
        SessionTrackerImpl.SessionImpl s = sessionTracker.sessionsById.get(sessionId);
        return s == null ? 0 : s.getTimeout();
    }
}
