//! Where a peer keeps its state besides the raft log: the region's metadata and the
//! apply state live in the KV engine under local keys, next to the region's data, so
//! that they are written in the same batch as the data they describe.

use super::apply::ApplyState;
use super::region::Region;
use crate::codec::{BufMutExt, Reader};
use crate::storage::traits::{KvEngine, Mutable, Snapshot};

/// Local keys sort before data keys (`z...`) and are never visible to clients.
pub const LOCAL_PREFIX: u8 = 0x01;
const REGION_META_PREFIX: u8 = 0x03;
const REGION_RAFT_PREFIX: u8 = 0x02;
const APPLY_STATE_SUFFIX: u8 = 0x03;
const REGION_STATE_SUFFIX: u8 = 0x01;

/// A bootstrapped region's log starts after index 5: the indexes up to 5 are reserved so
/// that a peer created by a snapshot can tell itself apart from a bootstrapped one.
pub const INIT_INDEX: u64 = 5;
pub const INIT_TERM: u64 = 5;

/// Whether the peer is serving, receiving a snapshot, or removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeerState {
    Normal,
    Applying,
    Tombstone,
}

fn local_key(kind: u8, region_id: u64, suffix: u8) -> Vec<u8> {
    let mut k = vec![LOCAL_PREFIX, kind];
    k.extend_from_slice(&region_id.to_be_bytes());
    k.push(suffix);
    k
}

pub fn apply_state_key(region_id: u64) -> Vec<u8> {
    local_key(REGION_RAFT_PREFIX, region_id, APPLY_STATE_SUFFIX)
}

pub fn region_state_key(region_id: u64) -> Vec<u8> {
    local_key(REGION_META_PREFIX, region_id, REGION_STATE_SUFFIX)
}

/// The range of every region state key, for loading all regions at startup.
pub fn region_meta_range() -> (Vec<u8>, Vec<u8>) {
    (vec![LOCAL_PREFIX, REGION_META_PREFIX], vec![LOCAL_PREFIX, REGION_META_PREFIX + 1])
}

pub fn encode_apply_state(s: &ApplyState) -> Vec<u8> {
    let mut b = Vec::with_capacity(24);
    b.put_u64_le(s.applied_index);
    b.put_u64_le(s.truncated_index);
    b.put_u64_le(s.truncated_term);
    b
}

pub fn decode_apply_state(b: &[u8]) -> Option<ApplyState> {
    let mut r = Reader::new(b);
    Some(ApplyState { applied_index: r.u64()?, truncated_index: r.u64()?, truncated_term: r.u64()? })
}

pub fn encode_region_state(region: &Region, state: PeerState) -> Vec<u8> {
    let mut b = vec![match state {
        PeerState::Normal => 0,
        PeerState::Applying => 1,
        PeerState::Tombstone => 2,
    }];
    region.encode(&mut b);
    b
}

pub fn decode_region_state(b: &[u8]) -> Option<(Region, PeerState)> {
    let mut r = Reader::new(b);
    let state = match r.u8()? {
        0 => PeerState::Normal,
        1 => PeerState::Applying,
        2 => PeerState::Tombstone,
        _ => return None,
    };
    Some((Region::decode(&mut r)?, state))
}

/// Records the apply state in a write batch; the apply loop calls it before flushing.
pub fn save_apply_state<W: Mutable>(wb: &mut W, region_id: u64, state: &ApplyState) {
    wb.put(&apply_state_key(region_id), &encode_apply_state(state));
}

/// The apply state of a region, or the initial state of a region that never applied.
pub fn load_apply_state<E: KvEngine>(engine: &E, region_id: u64) -> ApplyState {
    engine.get(&apply_state_key(region_id)).and_then(|b| decode_apply_state(&b)).unwrap_or(ApplyState {
        applied_index: INIT_INDEX,
        truncated_index: INIT_INDEX,
        truncated_term: INIT_TERM,
    })
}

/// Writes the states of a new region: a store bootstraps the first region this way.
pub fn write_initial_states<E: KvEngine>(engine: &E, region: &Region) -> crate::storage::traits::Result<()> {
    let mut wb = E::Batch::default();
    wb.put(&region_state_key(region.id), &encode_region_state(region, PeerState::Normal));
    let init = ApplyState { applied_index: INIT_INDEX, truncated_index: INIT_INDEX, truncated_term: INIT_TERM };
    save_apply_state(&mut wb, region.id, &init);
    engine.write_batch(wb)
}

/// Loads every region with a peer on this store, skipping tombstones.
pub fn load_regions<E: KvEngine>(engine: &E) -> Vec<(Region, PeerState)> {
    let (start, end) = region_meta_range();
    let snap = engine.snapshot();
    let mut out = Vec::new();
    snap.scan(&start, &end, &mut |_, v| {
        if let Some((region, state)) = decode_region_state(v) {
            if state != PeerState::Tombstone {
                out.push((region, state));
            }
        }
        true
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raftstore::region::{PeerMeta, RegionEpoch};
    use crate::storage::Engine;

    #[test]
    fn bootstrap_then_load() {
        let engine = Engine::new();
        let region = Region {
            id: 1042,
            start_key: b"ref/".to_vec(),
            end_key: b"ref0".to_vec(),
            epoch: RegionEpoch { conf_ver: 3, version: 7 },
            peers: vec![PeerMeta { id: 2, store_id: 2 }, PeerMeta { id: 5, store_id: 1 }],
        };
        write_initial_states(&engine, &region).unwrap();
        let loaded = load_regions(&engine);
        assert_eq!(loaded, vec![(region, PeerState::Normal)]);
        assert_eq!(load_apply_state(&engine, 1042).applied_index, INIT_INDEX);
    }

    #[test]
    fn local_keys_sort_before_data_keys() {
        assert!(apply_state_key(u64::MAX) < crate::raftstore::apply::data_key(0, b""));
    }
}
