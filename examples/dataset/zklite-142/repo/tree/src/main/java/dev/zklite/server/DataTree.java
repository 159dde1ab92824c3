package dev.zklite.server;

import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-memory tree of nodes. Ephemeral nodes are indexed by owning session so closing a
 * session removes them in one pass.
 */
public class DataTree {

    private static final Logger LOG = LoggerFactory.getLogger(DataTree.class);

    public static final class Node {
        final byte[] data;
        final long ephemeralOwner;
        final long czxid;

        Node(byte[] data, long ephemeralOwner, long czxid) {
            this.data = data;
            this.ephemeralOwner = ephemeralOwner;
            this.czxid = czxid;
        }
    }

    private final Map<String, Node> nodes = new ConcurrentHashMap<>();
    private final Map<Long, Set<String>> ephemerals = new ConcurrentHashMap<>();
    private volatile long lastProcessedZxid;

    public DataTree() {
        nodes.put("/", new Node(new byte[0], 0, 0));
    }

    public void createNode(String path, byte[] data, long ephemeralOwner, long zxid) throws NodeExistsException {
        Node node = new Node(data, ephemeralOwner, zxid);
        if (nodes.putIfAbsent(path, node) != null) {
            throw new NodeExistsException(path);
        }
        if (ephemeralOwner != 0) {
            ephemerals.computeIfAbsent(ephemeralOwner, k -> ConcurrentHashMap.newKeySet()).add(path);
        }
        lastProcessedZxid = zxid;
    }

    public void deleteNode(String path, long zxid) {
        Node node = nodes.remove(path);
        if (node != null && node.ephemeralOwner != 0) {
            Set<String> owned = ephemerals.get(node.ephemeralOwner);
            if (owned != null) {
                owned.remove(path);
            }
        }
        lastProcessedZxid = zxid;
    }

    /** Removes every ephemeral node of a closed session. */
    public void killSession(long session, long zxid) {
        Set<String> list = ephemerals.remove(session);
        if (list == null) {
            return;
        }
        for (String path : list) {
            deleteNode(path, zxid);
            LOG.info("Deleting ephemeral node {} for session 0x{} zxid 0x{}", path,
                    Long.toHexString(session), Long.toHexString(zxid));
        }
    }

    public Set<String> getEphemerals(long sessionId) {
        Set<String> owned = ephemerals.get(sessionId);
        return owned == null ? Collections.emptySet() : new HashSet<>(owned);
    }

    public Node getNode(String path) {
        return nodes.get(path);
    }

    public long getLastProcessedZxid() {
        return lastProcessedZxid;
    }

    public static class NodeExistsException extends Exception {
        private static final long serialVersionUID = 1L;

        public NodeExistsException(String path) {
            super("node exists: " + path);
        }
    }
}
