package dev.zklite.metrics;

import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Server metrics: counters, gauges and latency summaries, printed by the "mntr" admin word
 * ({@code zk_<name>\t<value>}) and by the Prometheus endpoint.
 */
public final class MetricsRegistry {

    /** A monotonically increasing count. */
    public static final class Counter {
        private final LongAdder value = new LongAdder();

        public void inc() {
            value.increment();
        }

        public void add(long delta) {
            value.add(delta);
        }

        public long get() {
            return value.sum();
        }
    }

    /** Count, sum, min and max of observed values, e.g. request latencies in ms. */
    public static final class Summary {
        private final AtomicLong count = new AtomicLong();
        private long sum;
        private long min = Long.MAX_VALUE;
        private long max = Long.MIN_VALUE;

        public synchronized void observe(long value) {
            count.incrementAndGet();
            sum += value;
            min = Math.min(min, value);
            max = Math.max(max, value);
        }

        public long count() {
            return count.get();
        }

        public synchronized long sum() {
            return sum;
        }

        public synchronized double avg() {
            long c = count.get();
            return c == 0 ? 0 : (double) sum / c;
        }

        public synchronized long min() {
            return count.get() == 0 ? 0 : min;
        }

        public synchronized long max() {
            return count.get() == 0 ? 0 : max;
        }

        public synchronized void reset() {
            count.set(0);
            sum = 0;
            min = Long.MAX_VALUE;
            max = Long.MIN_VALUE;
        }
    }

    private final Map<String, Counter> counters = new ConcurrentSkipListMap<>();
    private final Map<String, LongSupplier> gauges = new ConcurrentSkipListMap<>();
    private final Map<String, Summary> summaries = new ConcurrentSkipListMap<>();

    public Counter counter(String name) {
        return counters.computeIfAbsent(checkName(name), n -> new Counter());
    }

    public Summary summary(String name) {
        return summaries.computeIfAbsent(checkName(name), n -> new Summary());
    }

    /** Registers a value read on demand, e.g. the number of open connections. */
    public void gauge(String name, LongSupplier supplier) {
        gauges.put(checkName(name), supplier);
    }

    private static String checkName(String name) {
        if (!name.matches("[a-z][a-z0-9_]*")) {
            throw new IllegalArgumentException("metric names are lower_snake_case: " + name);
        }
        return name;
    }

    /** The "mntr" format: one {@code zk_name<TAB>value} per line. */
    public void writeMntr(PrintWriter out) {
        counters.forEach((name, c) -> out.printf("zk_%s\t%d%n", name, c.get()));
        gauges.forEach((name, g) -> out.printf("zk_%s\t%d%n", name, g.getAsLong()));
        summaries.forEach((name, s) -> {
            out.printf("zk_avg_%s\t%.4f%n", name, s.avg());
            out.printf("zk_min_%s\t%d%n", name, s.min());
            out.printf("zk_max_%s\t%d%n", name, s.max());
            out.printf("zk_cnt_%s\t%d%n", name, s.count());
        });
        out.flush();
    }

    /** The Prometheus text exposition format (version 0.0.4). */
    public void writePrometheus(PrintWriter out) {
        counters.forEach((name, c) -> {
            out.printf("# TYPE %s counter%n%s %d%n", name, name, c.get());
        });
        gauges.forEach((name, g) -> {
            out.printf("# TYPE %s gauge%n%s %d%n", name, name, g.getAsLong());
        });
        summaries.forEach((name, s) -> {
            out.printf("# TYPE %s summary%n", name);
            out.printf("%s_sum %d%n%s_count %d%n", name, s.sum(), name, s.count());
        });
        out.flush();
    }

    public void resetSummaries() {
        summaries.values().forEach(Summary::reset);
    }
}
