package dev.zklite.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

class ExpiryQueueTest {

    @Test
    void updateMovesElementToLaterBucket() {
        ExpiryQueue<String> queue = new ExpiryQueue<>(10);
        Long first = queue.update("a", 100);
        Long second = queue.update("a", 5_000);
        assertTrue(second > first);
        assertEquals(1, queue.getExpiryMap().get(second).size());
        assertTrue(queue.getExpiryMap().get(first).isEmpty());
    }

    @Test
    void removeForgetsElement() {
        ExpiryQueue<String> queue = new ExpiryQueue<>(10);
        Long deadline = queue.update("a", 100);
        assertEquals(deadline, queue.remove("a"));
        Set<String> bucket = queue.getExpiryMap().get(deadline);
        assertTrue(bucket == null || bucket.isEmpty());
    }
}
