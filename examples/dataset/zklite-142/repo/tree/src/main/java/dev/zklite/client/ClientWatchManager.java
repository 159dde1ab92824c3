package dev.zklite.client;

import dev.zklite.proto.WatcherEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The client's one-shot watches by path. A watch is registered only after its request
 * succeeded, removed when it fires, and re-sent to the server after a reconnect.
 */
final class ClientWatchManager {

    private final Map<String, Set<Watcher>> dataWatches = new HashMap<>();
    private final Map<String, Set<Watcher>> existWatches = new HashMap<>();
    private final Map<String, Set<Watcher>> childWatches = new HashMap<>();
    private final Watcher defaultWatcher;

    ClientWatchManager(Watcher defaultWatcher) {
        this.defaultWatcher = defaultWatcher;
    }

    synchronized void addDataWatch(String path, Watcher w) {
        dataWatches.computeIfAbsent(path, p -> new HashSet<>()).add(w);
    }

    /** An exists watch on a missing node waits for its creation. */
    synchronized void addExistWatch(String path, Watcher w) {
        existWatches.computeIfAbsent(path, p -> new HashSet<>()).add(w);
    }

    synchronized void addChildWatch(String path, Watcher w) {
        childWatches.computeIfAbsent(path, p -> new HashSet<>()).add(w);
    }

    /** The watchers an event triggers; they are removed, since watches fire once. */
    synchronized Set<Watcher> materialize(WatcherEvent event) {
        Set<Watcher> result = new HashSet<>();
        String path = event.path();
        switch (event.type()) {
            case NONE -> {
                result.add(defaultWatcher);
                if (event.state() == WatcherEvent.KeeperState.EXPIRED
                        || event.state() == WatcherEvent.KeeperState.CLOSED) {
                    drainAll(result);
                }
            }
            case NODE_CREATED, NODE_DATA_CHANGED -> {
                addTo(result, dataWatches.remove(path));
                addTo(result, existWatches.remove(path));
            }
            case NODE_CHILDREN_CHANGED -> addTo(result, childWatches.remove(path));
            case NODE_DELETED -> {
                addTo(result, dataWatches.remove(path));
                addTo(result, existWatches.remove(path));
                addTo(result, childWatches.remove(path));
            }
            default -> throw new IllegalStateException("unhandled event type " + event.type());
        }
        return result;
    }

    private void drainAll(Set<Watcher> result) {
        for (Map<String, Set<Watcher>> map : List.of(dataWatches, existWatches, childWatches)) {
            map.values().forEach(result::addAll);
            map.clear();
        }
    }

    private static void addTo(Set<Watcher> result, Set<Watcher> watchers) {
        if (watchers != null) {
            result.addAll(watchers);
        }
    }

    /** Paths to re-register after a reconnect, in the order data, exist, child. */
    synchronized List<List<String>> pathsToReRegister() {
        return List.of(new ArrayList<>(dataWatches.keySet()), new ArrayList<>(existWatches.keySet()),
                new ArrayList<>(childWatches.keySet()));
    }
}
