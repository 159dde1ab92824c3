package dev.zklite.client;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Retries an operation on retryable errors (connection loss, timeouts, throttling) with
 * exponential backoff and jitter. Only for idempotent operations: a retried create may
 * find the node it created itself before the connection broke.
 */
public final class RetryLoop {

    /** An operation on the client that may be retried. */
    @FunctionalInterface
    public interface Operation<T> {
        T call() throws ClientException, InterruptedException;
    }

    private final int maxRetries;
    private final long baseSleepMs;
    private final long maxSleepMs;

    public RetryLoop(int maxRetries, long baseSleepMs, long maxSleepMs) {
        if (maxRetries < 0 || baseSleepMs <= 0 || maxSleepMs < baseSleepMs) {
            throw new IllegalArgumentException("bad retry settings: " + maxRetries + ", " + baseSleepMs + ", " + maxSleepMs);
        }
        this.maxRetries = maxRetries;
        this.baseSleepMs = baseSleepMs;
        this.maxSleepMs = maxSleepMs;
    }

    /** Sleep before retry number {@code retry} (0-based): base * 2^retry, jittered, capped. */
    long sleepMs(int retry) {
        long ceiling = baseSleepMs << Math.min(retry, 20);
        long jittered = ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
        return Math.min(maxSleepMs, jittered);
    }

    public <T> T run(Operation<T> op) throws ClientException, InterruptedException {
        for (int retry = 0; ; retry++) {
            try {
                return op.call();
            } catch (ClientException e) {
                if (!e.code().isRetryable() || retry >= maxRetries) {
                    throw e;
                }
                Thread.sleep(sleepMs(retry));
            }
        }
    }
}
