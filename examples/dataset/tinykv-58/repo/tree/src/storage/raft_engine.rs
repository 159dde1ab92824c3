//! An in-memory raft log engine for tests and for stores started with `engine = "memory"`.

use std::collections::{BTreeMap, HashMap};
use std::sync::RwLock;

use super::traits::{EngineError, RaftEngine, RaftState, Result};
use crate::raftstore::msg::Entry;

#[derive(Default)]
struct RegionLog {
    entries: BTreeMap<u64, Entry>,
    state: Option<RaftState>,
}

/// Keeps every region's entries in a map; nothing survives a restart.
#[derive(Default)]
pub struct MemRaftEngine {
    regions: RwLock<HashMap<u64, RegionLog>>,
}

impl MemRaftEngine {
    pub fn new() -> MemRaftEngine {
        MemRaftEngine::default()
    }
}

/// Truncates `log` at the first appended index and inserts the new entries: a new
/// leader may overwrite a tail that was never committed.
pub(crate) fn append_entries(log: &mut BTreeMap<u64, Entry>, entries: &[Entry]) {
    let Some(first) = entries.first() else { return };
    let _ = log.split_off(&first.index);
    for e in entries {
        log.insert(e.index, e.clone());
    }
}

/// Collects `[lo, hi)` from `log` within `max_size` bytes (always at least one entry).
pub(crate) fn fetch_range(
    region_id: u64,
    log: &BTreeMap<u64, Entry>,
    lo: u64,
    hi: u64,
    max_size: usize,
) -> Result<Vec<Entry>> {
    let first = log.keys().next().copied().unwrap_or(0);
    let last = log.keys().next_back().copied().unwrap_or(0);
    if lo < first || hi > last + 1 || lo > hi {
        return Err(EngineError::Unavailable { region_id, lo, hi, first, last });
    }
    let mut out = Vec::with_capacity((hi - lo) as usize);
    let mut size = 0;
    for (_, e) in log.range(lo..hi) {
        size += e.data.len();
        if !out.is_empty() && size > max_size {
            break;
        }
        out.push(e.clone());
    }
    Ok(out)
}

impl RaftEngine for MemRaftEngine {
    fn append(&self, region_id: u64, entries: &[Entry]) -> Result<()> {
        let mut regions = self.regions.write().unwrap();
        append_entries(&mut regions.entry(region_id).or_default().entries, entries);
        Ok(())
    }

    fn fetch_entries(&self, region_id: u64, lo: u64, hi: u64, max_size: usize) -> Result<Vec<Entry>> {
        let regions = self.regions.read().unwrap();
        match regions.get(&region_id) {
            Some(r) => fetch_range(region_id, &r.entries, lo, hi, max_size),
            None => Err(EngineError::Unavailable { region_id, lo, hi, first: 0, last: 0 }),
        }
    }

    fn first_index(&self, region_id: u64) -> Option<u64> {
        self.regions.read().unwrap().get(&region_id)?.entries.keys().next().copied()
    }

    fn last_index(&self, region_id: u64) -> Option<u64> {
        self.regions.read().unwrap().get(&region_id)?.entries.keys().next_back().copied()
    }

    fn put_raft_state(&self, region_id: u64, state: RaftState) -> Result<()> {
        self.regions.write().unwrap().entry(region_id).or_default().state = Some(state);
        Ok(())
    }

    fn get_raft_state(&self, region_id: u64) -> Result<Option<RaftState>> {
        Ok(self.regions.read().unwrap().get(&region_id).and_then(|r| r.state))
    }

    fn gc(&self, region_id: u64, to: u64) -> Result<usize> {
        let mut regions = self.regions.write().unwrap();
        let Some(r) = regions.get_mut(&region_id) else { return Ok(0) };
        let keep = r.entries.split_off(&to);
        let dropped = r.entries.len();
        r.entries = keep;
        Ok(dropped)
    }

    fn sync(&self) -> Result<()> {
        Ok(())
    }
}
