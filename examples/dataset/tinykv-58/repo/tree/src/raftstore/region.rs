//! Region metadata: the key range a raft group owns, its epoch and its peers.

use crate::codec::{BufMutExt, Reader};

/// Bumped on every change: `conf_ver` on membership changes, `version` on splits and
/// merges. A request carries the epoch it was routed with; a stale one is rejected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct RegionEpoch {
    pub conf_ver: u64,
    pub version: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerMeta {
    pub id: u64,
    pub store_id: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Region {
    pub id: u64,
    /// Inclusive; empty means the start of the key space.
    pub start_key: Vec<u8>,
    /// Exclusive; empty means the end of the key space.
    pub end_key: Vec<u8>,
    pub epoch: RegionEpoch,
    pub peers: Vec<PeerMeta>,
}

impl Region {
    pub fn contains(&self, key: &[u8]) -> bool {
        key >= self.start_key.as_slice() && (self.end_key.is_empty() || key < self.end_key.as_slice())
    }

    pub fn peer_on_store(&self, store_id: u64) -> Option<PeerMeta> {
        self.peers.iter().copied().find(|p| p.store_id == store_id)
    }

    pub fn encode(&self, buf: &mut Vec<u8>) {
        buf.put_u64_le(self.id);
        buf.put_bytes(&self.start_key);
        buf.put_bytes(&self.end_key);
        buf.put_u64_le(self.epoch.conf_ver);
        buf.put_u64_le(self.epoch.version);
        buf.put_u32_le(self.peers.len() as u32);
        for p in &self.peers {
            buf.put_u64_le(p.id);
            buf.put_u64_le(p.store_id);
        }
    }

    pub fn decode(r: &mut Reader<'_>) -> Option<Region> {
        let id = r.u64()?;
        let start_key = r.bytes()?.to_vec();
        let end_key = r.bytes()?.to_vec();
        let epoch = RegionEpoch { conf_ver: r.u64()?, version: r.u64()? };
        let n = r.u32()? as usize;
        let mut peers = Vec::with_capacity(n.min(16));
        for _ in 0..n {
            peers.push(PeerMeta { id: r.u64()?, store_id: r.u64()? });
        }
        Some(Region { id, start_key, end_key, epoch, peers })
    }
}
