//! Process-wide metrics as statics, rendered in the Prometheus text format by the status
//! server. Histograms use fixed power-of-two buckets in microseconds.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

pub struct Counter {
    name: &'static str,
    help: &'static str,
    value: AtomicU64,
}

impl Counter {
    pub const fn new(name: &'static str, help: &'static str) -> Counter {
        Counter { name, help, value: AtomicU64::new(0) }
    }

    pub fn inc(&self) {
        self.add(1);
    }

    pub fn add(&self, n: u64) {
        self.value.fetch_add(n, Ordering::Relaxed);
    }

    pub fn get(&self) -> u64 {
        self.value.load(Ordering::Relaxed)
    }
}

pub struct Gauge {
    name: &'static str,
    help: &'static str,
    value: AtomicU64,
}

impl Gauge {
    pub const fn new(name: &'static str, help: &'static str) -> Gauge {
        Gauge { name, help, value: AtomicU64::new(0) }
    }

    pub fn set(&self, v: u64) {
        self.value.store(v, Ordering::Relaxed);
    }

    pub fn get(&self) -> u64 {
        self.value.load(Ordering::Relaxed)
    }
}

const BUCKETS: usize = 24;

/// Bucket i counts durations below 2^i microseconds; the last bucket is unbounded
/// (2^23 us is about 8.4 s).
pub struct Histogram {
    name: &'static str,
    help: &'static str,
    buckets: [AtomicU64; BUCKETS],
    count: AtomicU64,
    sum_us: AtomicU64,
}

impl Histogram {
    pub const fn new(name: &'static str, help: &'static str) -> Histogram {
        #[allow(clippy::declare_interior_mutable_const)]
        const ZERO: AtomicU64 = AtomicU64::new(0);
        Histogram { name, help, buckets: [ZERO; BUCKETS], count: ZERO, sum_us: ZERO }
    }

    pub fn observe(&self, d: Duration) {
        let us = d.as_micros().min(u64::MAX as u128) as u64;
        let idx = (64 - us.leading_zeros() as usize).min(BUCKETS - 1);
        self.buckets[idx].fetch_add(1, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum_us.fetch_add(us, Ordering::Relaxed);
    }

    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }
}

pub static RAFT_MESSAGES_SENT: Counter =
    Counter::new("tinykv_raft_messages_sent_total", "Raft messages written to connections.");
pub static RAFT_MESSAGES_RECEIVED: Counter =
    Counter::new("tinykv_raft_messages_received_total", "Raft messages read from connections.");
pub static RAFT_MESSAGES_DROPPED: Counter =
    Counter::new("tinykv_raft_messages_dropped_total", "Raft messages dropped: full queue or unreachable store.");
pub static APPLY_ENTRIES: Counter =
    Counter::new("tinykv_apply_entries_total", "Committed entries handed to the apply worker.");
pub static PROPOSALS: Counter = Counter::new("tinykv_proposals_total", "Entries proposed by leaders.");
pub static READ_INDEX_TIMEOUTS: Counter =
    Counter::new("tinykv_read_timeouts_total", "Reads that timed out waiting on the leader.");
pub static SNAPSHOTS_GENERATED: Counter =
    Counter::new("tinykv_snapshots_generated_total", "Region snapshots generated.");
pub static SNAPSHOTS_APPLIED: Counter = Counter::new("tinykv_snapshots_applied_total", "Region snapshots applied.");
pub static REGION_COUNT: Gauge = Gauge::new("tinykv_regions", "Regions with a peer on this store.");
pub static LEADER_COUNT: Gauge = Gauge::new("tinykv_leaders", "Regions led by this store.");
pub static APPLY_WAIT: Histogram = Histogram::new("tinykv_apply_wait_seconds", "Time from commit to apply.");
pub static CLIENT_REQUEST: Histogram =
    Histogram::new("tinykv_client_request_seconds", "Client request latency, retries included.");

static COUNTERS: [&Counter; 8] = [
    &RAFT_MESSAGES_SENT,
    &RAFT_MESSAGES_RECEIVED,
    &RAFT_MESSAGES_DROPPED,
    &APPLY_ENTRIES,
    &PROPOSALS,
    &READ_INDEX_TIMEOUTS,
    &SNAPSHOTS_GENERATED,
    &SNAPSHOTS_APPLIED,
];
static GAUGES: [&Gauge; 2] = [&REGION_COUNT, &LEADER_COUNT];
static HISTOGRAMS: [&Histogram; 2] = [&APPLY_WAIT, &CLIENT_REQUEST];

/// Renders every metric in the Prometheus text format.
pub fn gather() -> String {
    let mut out = String::new();
    for c in COUNTERS {
        let _ = writeln!(out, "# HELP {} {}\n# TYPE {} counter\n{} {}", c.name, c.help, c.name, c.name, c.get());
    }
    for g in GAUGES {
        let _ = writeln!(out, "# HELP {} {}\n# TYPE {} gauge\n{} {}", g.name, g.help, g.name, g.name, g.get());
    }
    for h in HISTOGRAMS {
        let _ = writeln!(out, "# HELP {} {}\n# TYPE {} histogram", h.name, h.help, h.name);
        let mut cumulative = 0;
        for (i, b) in h.buckets.iter().enumerate().take(BUCKETS - 1) {
            cumulative += b.load(Ordering::Relaxed);
            let le = (1u64 << i) as f64 / 1e6;
            let _ = writeln!(out, "{}_bucket{{le=\"{}\"}} {}", h.name, le, cumulative);
        }
        let _ = writeln!(out, "{}_bucket{{le=\"+Inf\"}} {}", h.name, h.count());
        let sum = h.sum_us.load(Ordering::Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "{}_sum {}\n{}_count {}", h.name, sum, h.name, h.count());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_by_power_of_two() {
        let h = Histogram::new("t", "t");
        h.observe(Duration::from_micros(0));
        h.observe(Duration::from_micros(3));
        h.observe(Duration::from_micros(4));
        h.observe(Duration::from_secs(60));
        assert_eq!(h.buckets[0].load(Ordering::Relaxed), 1);
        assert_eq!(h.buckets[2].load(Ordering::Relaxed), 1);
        assert_eq!(h.buckets[3].load(Ordering::Relaxed), 1);
        assert_eq!(h.buckets[BUCKETS - 1].load(Ordering::Relaxed), 1);
    }

    #[test]
    fn gather_lists_every_metric() {
        PROPOSALS.inc();
        let text = gather();
        assert!(text.contains("# TYPE tinykv_proposals_total counter"));
        assert!(text.contains("tinykv_apply_wait_seconds_bucket{le=\"+Inf\"}"));
    }
}
