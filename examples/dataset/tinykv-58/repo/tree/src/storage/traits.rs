//! Engine traits: what the raftstore needs from a key-value engine (for region data and
//! apply state) and from a raft log engine (for entries and raft state). The in-memory
//! engine implements the first; `MemRaftEngine` and `LogEngine` the second.

use std::ops::Bound;

use thiserror::Error;

use crate::raftstore::msg::Entry;

#[derive(Debug, Error)]
pub enum EngineError {
    #[error("io: {0}")]
    Io(#[from] std::io::Error),
    #[error("corrupted {what} at offset {offset}")]
    Corruption { what: &'static str, offset: u64 },
    #[error("entries [{lo}, {hi}) of region {region_id} are not available (first {first}, last {last})")]
    Unavailable { region_id: u64, lo: u64, hi: u64, first: u64, last: u64 },
    #[error("{0}")]
    Other(String),
}

pub type Result<T> = std::result::Result<T, EngineError>;

/// Key-value pairs in key order, as scans and snapshots return them.
pub type KvPairs = Vec<(Vec<u8>, Vec<u8>)>;

/// A consistent read view.
pub trait Snapshot: Send + Sync {
    fn get(&self, key: &[u8]) -> Option<Vec<u8>>;
    /// Calls `f` for every pair in `[start, end)` in key order until it returns false.
    fn scan(&self, start: &[u8], end: &[u8], f: &mut dyn FnMut(&[u8], &[u8]) -> bool);
}

/// Writes collected into one atomic batch.
pub trait Mutable {
    fn put(&mut self, key: &[u8], value: &[u8]);
    fn delete(&mut self, key: &[u8]);
    fn delete_range(&mut self, start: &[u8], end: &[u8]);
    fn count(&self) -> usize;
}

/// The engine of region data.
pub trait KvEngine: Clone + Send + Sync + 'static {
    type Snap: Snapshot;
    type Batch: Mutable + Default;

    fn get(&self, key: &[u8]) -> Option<Vec<u8>>;
    fn write_batch(&self, wb: Self::Batch) -> Result<()>;
    fn snapshot(&self) -> Self::Snap;
}

/// What raft must remember across restarts besides the entries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RaftState {
    pub term: u64,
    pub vote: u64,
    pub commit: u64,
    pub last_index: u64,
}

/// The engine of raft logs, keyed by region.
pub trait RaftEngine: Send + Sync + 'static {
    /// Appends entries; entries at or after the first one's index replace what was there.
    fn append(&self, region_id: u64, entries: &[Entry]) -> Result<()>;
    /// Returns entries `[lo, hi)`, at most `max_size` bytes of data but at least one.
    fn fetch_entries(&self, region_id: u64, lo: u64, hi: u64, max_size: usize) -> Result<Vec<Entry>>;
    fn first_index(&self, region_id: u64) -> Option<u64>;
    fn last_index(&self, region_id: u64) -> Option<u64>;
    fn put_raft_state(&self, region_id: u64, state: RaftState) -> Result<()>;
    fn get_raft_state(&self, region_id: u64) -> Result<Option<RaftState>>;
    /// Drops the entries below `to`; returns how many were dropped.
    fn gc(&self, region_id: u64, to: u64) -> Result<usize>;
    fn sync(&self) -> Result<()>;
}

/// The key after every key with this prefix, for range ends.
pub fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    Vec::new()
}

/// Turns a `[start, end)` pair into bounds; an empty end means unbounded.
pub fn range_bounds<'a>(start: &'a [u8], end: &'a [u8]) -> (Bound<&'a [u8]>, Bound<&'a [u8]>) {
    let upper = if end.is_empty() { Bound::Unbounded } else { Bound::Excluded(end) };
    (Bound::Included(start), upper)
}
