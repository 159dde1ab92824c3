package dev.zklite.server;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The in-memory tree of znodes with their data, version and ACL. */
public class DataTree {

    public static final class DataNode {
        byte[] data;
        int version;
        int aclVersion;
        List<Request.Acl> acl;
        final List<String> children = Collections.synchronizedList(new ArrayList<>());

        DataNode(byte[] data, List<Request.Acl> acl) {
            this.data = data;
            this.acl = acl;
        }
    }

    public static class NoNodeException extends Exception {
        private static final long serialVersionUID = 1L;

        public NoNodeException(String path) {
            super("no node " + path);
        }
    }

    public static class NodeExistsException extends Exception {
        private static final long serialVersionUID = 1L;

        public NodeExistsException(String path) {
            super("node exists " + path);
        }
    }

    private final Map<String, DataNode> nodes = new ConcurrentHashMap<>();
    private volatile long lastProcessedZxid;

    public DataTree() {
        nodes.put("/", new DataNode(new byte[0], List.of(new Request.Acl(31, "world", "anyone"))));
    }

    static String parentOf(String path) {
        int slash = path.lastIndexOf('/');
        return slash == 0 ? "/" : path.substring(0, slash);
    }

    public void createNode(String path, byte[] data, List<Request.Acl> acl, long zxid)
            throws NoNodeException, NodeExistsException {
        DataNode parent = nodes.get(parentOf(path));
        if (parent == null) {
            throw new NoNodeException(parentOf(path));
        }
        if (nodes.putIfAbsent(path, new DataNode(data, acl)) != null) {
            throw new NodeExistsException(path);
        }
        parent.children.add(path.substring(path.lastIndexOf('/') + 1));
        lastProcessedZxid = zxid;
    }

    public void deleteNode(String path, long zxid) throws NoNodeException {
        DataNode node = nodes.remove(path);
        if (node == null) {
            throw new NoNodeException(path);
        }
        DataNode parent = nodes.get(parentOf(path));
        if (parent != null) {
            parent.children.remove(path.substring(path.lastIndexOf('/') + 1));
        }
        lastProcessedZxid = zxid;
    }

    public int setData(String path, byte[] data, long zxid) throws NoNodeException {
        DataNode node = nodes.get(path);
        if (node == null) {
            throw new NoNodeException(path);
        }
        synchronized (node) {
            node.data = data;
            node.version++;
            lastProcessedZxid = zxid;
            return node.version;
        }
    }

    public int setACL(String path, List<Request.Acl> acl, long zxid) {
        DataNode node = nodes.get(path);
        synchronized (node) {
            node.acl = acl;
            node.aclVersion++;
            lastProcessedZxid = zxid;
            return node.aclVersion;
        }
    }

    public byte[] getData(String path) throws NoNodeException {
        DataNode node = nodes.get(path);
        if (node == null) {
            throw new NoNodeException(path);
        }
        return node.data;
    }

    public long getLastProcessedZxid() {
        return lastProcessedZxid;
    }
}
