package dev.zklite.server;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.LinkedBlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds write requests until the quorum commits them, then hands them to the final
 * processor in commit order. Reads pass straight through when no write of the same
 * session is pending.
 */
public class CommitProcessor extends Thread {

    private static final Logger LOG = LoggerFactory.getLogger(CommitProcessor.class);

    private final LinkedBlockingQueue<Request> queuedRequests = new LinkedBlockingQueue<>();
    private final LinkedBlockingQueue<Long> committedZxids = new LinkedBlockingQueue<>();
    private final Deque<Request> pendingWrites = new ArrayDeque<>();
    private final FinalRequestProcessor next;
    private volatile boolean stopped = false;

    public CommitProcessor(FinalRequestProcessor next) {
        super("CommitProcessor");
        this.next = next;
    }

    /** A request from the prep stage. */
    public void processRequest(Request request) {
        queuedRequests.add(request);
    }

    /** The quorum committed this zxid. */
    public void commit(long zxid) {
        committedZxids.add(zxid);
    }

    @Override
    public void run() {
        try {
            while (!stopped) {
                Request request = queuedRequests.poll(10, java.util.concurrent.TimeUnit.MILLISECONDS);
                if (request != null) {
                    if (request.isWrite()) {
                        pendingWrites.add(request);
                    } else if (pendingWrites.stream().noneMatch(w -> w.sessionId == request.sessionId)) {
                        next.processRequest(request);
                    } else {
                        pendingWrites.add(request);
                    }
                }
                Long zxid;
                while ((zxid = committedZxids.peek()) != null && !pendingWrites.isEmpty()) {
                    Request head = pendingWrites.peek();
                    if (!head.isWrite()) {
                        next.processRequest(pendingWrites.poll());
                        continue;
                    }
                    if (head.zxid != zxid) {
                        LOG.warn("Committed zxid 0x{} does not match pending request {}", Long.toHexString(zxid), head);
                        break;
                    }
                    committedZxids.poll();
                    next.processRequest(pendingWrites.poll());
                }
            }
        } catch (InterruptedException e) {
            LOG.info("CommitProcessor interrupted");
        } catch (Throwable e) {
            LOG.error("Unexpected exception causing CommitProcessor to exit", e);
        }
        LOG.info("CommitProcessor exited loop!");
    }

    public void shutdown() {
        stopped = true;
        interrupt();
    }
}
