package dev.zklite.server;

/** Monotonic time for deadlines; wall time only for display. */
public final class Time {
    private Time() {
    }

    public static long currentElapsedTime() {
        return System.nanoTime() / 1_000_000;
    }

    public static long currentWallTime() {
        return System.currentTimeMillis();
    }
}
