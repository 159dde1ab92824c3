package dev.zklite.client;

import dev.zklite.proto.WatcherEvent;

/**
 * Receives watch notifications and connection state changes. Called on the client's event
 * thread, one event at a time, in the order the server sent them.
 */
@FunctionalInterface
public interface Watcher {
    void process(WatcherEvent event);
}
