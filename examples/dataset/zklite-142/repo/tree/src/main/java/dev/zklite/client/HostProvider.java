package dev.zklite.client;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The servers of the ensemble in a shuffled order. After a full round without a successful
 * connection the caller backs off, so a client does not spin on a dead ensemble.
 */
public final class HostProvider {

    private final List<InetSocketAddress> servers;
    private int lastIndex = -1;
    private int currentIndex = -1;

    public HostProvider(List<InetSocketAddress> servers, long seed) {
        if (servers.isEmpty()) {
            throw new IllegalArgumentException("A HostProvider may not be empty!");
        }
        this.servers = new ArrayList<>(servers);
        Collections.shuffle(this.servers, new Random(seed));
    }

    /** Parses "host1:2181,host2:2181"; the port defaults to 2181. */
    public static List<InetSocketAddress> parse(String connectString) {
        List<InetSocketAddress> out = new ArrayList<>();
        for (String part : connectString.split(",")) {
            String hostPort = part.trim();
            int colon = hostPort.lastIndexOf(':');
            String host = colon < 0 ? hostPort : hostPort.substring(0, colon);
            int port = colon < 0 ? 2181 : Integer.parseInt(hostPort.substring(colon + 1));
            out.add(InetSocketAddress.createUnresolved(host, port));
        }
        return out;
    }

    public int size() {
        return servers.size();
    }

    /**
     * The next server to try. Sleeps {@code spinDelayMs} first when every server was tried
     * since the last successful connection.
     */
    public InetSocketAddress next(long spinDelayMs) throws InterruptedException {
        currentIndex = (currentIndex + 1) % servers.size();
        if (currentIndex == lastIndex && spinDelayMs > 0) {
            Thread.sleep(spinDelayMs);
        } else if (lastIndex == -1) {
            lastIndex = 0;
        }
        InetSocketAddress unresolved = servers.get(currentIndex);
        return new InetSocketAddress(unresolved.getHostString(), unresolved.getPort());
    }

    /** Called once a connection to the current server succeeded. */
    public void onConnected() {
        lastIndex = currentIndex;
    }
}
