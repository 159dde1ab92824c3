package dev.zklite.server;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first stage on the leader: validates a write against the current tree, assigns its
 * zxid and proposes it. Validation sees the tree as of the last applied txn, not the
 * writes still in flight behind it.
 */
public class PrepRequestProcessor {

    private static final Logger LOG = LoggerFactory.getLogger(PrepRequestProcessor.class);

    private final DataTree tree;
    private final CommitProcessor next;
    private final Proposer proposer;
    private final AtomicLong nextZxid;

    /** Sends a proposal to the followers; the commit comes back through CommitProcessor.commit. */
    public interface Proposer {
        void propose(Request request);
    }

    public PrepRequestProcessor(DataTree tree, CommitProcessor next, Proposer proposer, long lastZxid) {
        this.tree = tree;
        this.next = next;
        this.proposer = proposer;
        this.nextZxid = new AtomicLong(lastZxid);
    }

    public void processRequest(Request request) {
        if (!request.isWrite()) {
            next.processRequest(request);
            return;
        }
        if (request.type == Request.Type.SET_ACL || request.type == Request.Type.SET_DATA) {
            try {
                tree.getData(request.path);
            } catch (DataTree.NoNodeException e) {
                LOG.debug("Rejecting {}: {}", request, e.getMessage());
                request.sink.send(request.cxid, -1, Request.Code.NO_NODE, new byte[0]);
                return;
            }
        }
        request.zxid = nextZxid.incrementAndGet();
        next.processRequest(request);
        proposer.propose(request);
    }
}
