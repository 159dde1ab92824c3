use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::RwLock;

use crate::raftstore::region::{PeerMeta, Region};

#[derive(Debug, Clone)]
struct Cached {
    region: Region,
    leader: Option<PeerMeta>,
}

/// Regions by start key, with the leader last seen for each.
#[derive(Debug, Default)]
pub struct RegionCache {
    by_start: RwLock<BTreeMap<Vec<u8>, Cached>>,
}

impl RegionCache {
    /// The cached region holding `key` and its leader, if any.
    pub fn lookup(&self, key: &[u8]) -> Option<(Region, Option<PeerMeta>)> {
        let map = self.by_start.read().unwrap();
        let (_, c) = map.range::<[u8], _>((Bound::Unbounded, Bound::Included(key))).next_back()?;
        c.region.contains(key).then(|| (c.region.clone(), c.leader))
    }

    /// Caches a region, dropping cached regions it overlaps (they are older).
    pub fn insert(&self, region: Region, leader: Option<PeerMeta>) {
        let mut map = self.by_start.write().unwrap();
        let overlapping: Vec<Vec<u8>> =
            map.iter().filter(|(_, c)| overlaps(&c.region, &region)).map(|(k, _)| k.clone()).collect();
        for k in overlapping {
            map.remove(&k);
        }
        map.insert(region.start_key.clone(), Cached { region, leader });
    }

    pub fn update_leader(&self, region_id: u64, leader: PeerMeta) {
        let mut map = self.by_start.write().unwrap();
        if let Some(c) = map.values_mut().find(|c| c.region.id == region_id) {
            c.leader = Some(leader);
        }
    }

    pub fn invalidate(&self, region_id: u64) {
        self.by_start.write().unwrap().retain(|_, c| c.region.id != region_id);
    }

    pub fn len(&self) -> usize {
        self.by_start.read().unwrap().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn overlaps(a: &Region, b: &Region) -> bool {
    let a_before_b_ends = b.end_key.is_empty() || a.start_key < b.end_key;
    let b_before_a_ends = a.end_key.is_empty() || b.start_key < a.end_key;
    a_before_b_ends && b_before_a_ends
}
