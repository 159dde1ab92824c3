//! The client of a tinykv cluster. Each request is routed to the leader of the region
//! that holds its key, found through a region cache backed by a `RegionProvider` (the
//! placement service). Region errors update the cache and the request is retried until
//! the backoff budget runs out.

mod region_cache;

use std::thread;
use std::time::{Duration, Instant};

use log::debug;

pub use region_cache::RegionCache;

use crate::metrics;
use crate::raftstore::region::{PeerMeta, Region, RegionEpoch};
use crate::storage::traits::KvPairs;

/// Why a store refused a request for a region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegionError {
    NotLeader {
        region_id: u64,
        leader: Option<PeerMeta>,
    },
    /// The region split or merged; `current` are the regions the store has now.
    EpochNotMatch {
        current: Vec<Region>,
    },
    RegionNotFound {
        region_id: u64,
    },
    KeyNotInRegion {
        key: Vec<u8>,
        region_id: u64,
    },
    ServerIsBusy,
    /// The store accepted the request but could not serve it in time (e.g. a read that
    /// waited for the leader to apply its term).
    Timeout,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RpcError {
    Region(RegionError),
    Unreachable(String),
    Other(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KvRequest {
    Get { key: Vec<u8> },
    Put { key: Vec<u8>, value: Vec<u8> },
    Delete { key: Vec<u8> },
    Scan { start: Vec<u8>, end: Vec<u8>, limit: usize },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KvResponse {
    Value(Option<Vec<u8>>),
    Done,
    Pairs(KvPairs),
}

/// Where a request is sent: the region, the epoch it was routed with, the peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestContext {
    pub region_id: u64,
    pub epoch: RegionEpoch,
    pub peer: PeerMeta,
}

/// Sends a request to a store.
pub trait KvRpc: Send + Sync {
    fn call(&self, store_id: u64, ctx: &RequestContext, req: &KvRequest) -> Result<KvResponse, RpcError>;
}

/// Looks up the region of a key and its leader, as the placement service knows them.
pub trait RegionProvider: Send + Sync {
    fn locate(&self, key: &[u8]) -> Result<(Region, Option<PeerMeta>), String>;
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ClientError {
    #[error("gave up after {attempts} attempts in {elapsed:?}: {last}")]
    Exhausted { attempts: u32, elapsed: Duration, last: String },
    #[error("cannot locate key: {0}")]
    Locate(String),
    #[error("{0}")]
    Other(String),
    #[error("unexpected response {0:?}")]
    Unexpected(KvResponse),
}

/// Exponential backoff with a total budget.
#[derive(Debug, Clone)]
pub struct Backoff {
    pub base: Duration,
    pub max: Duration,
    pub budget: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff { base: Duration::from_millis(20), max: Duration::from_secs(1), budget: Duration::from_secs(20) }
    }
}

pub struct Client<P: RegionProvider, R: KvRpc> {
    provider: P,
    rpc: R,
    cache: RegionCache,
    backoff: Backoff,
}

impl<P: RegionProvider, R: KvRpc> Client<P, R> {
    pub fn new(provider: P, rpc: R, backoff: Backoff) -> Self {
        Client { provider, rpc, cache: RegionCache::default(), backoff }
    }

    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, ClientError> {
        match self.request(key, &KvRequest::Get { key: key.to_vec() })? {
            KvResponse::Value(v) => Ok(v),
            other => Err(ClientError::Unexpected(other)),
        }
    }

    pub fn put(&self, key: &[u8], value: &[u8]) -> Result<(), ClientError> {
        self.request(key, &KvRequest::Put { key: key.to_vec(), value: value.to_vec() }).map(|_| ())
    }

    pub fn delete(&self, key: &[u8]) -> Result<(), ClientError> {
        self.request(key, &KvRequest::Delete { key: key.to_vec() }).map(|_| ())
    }

    /// Scans `[start, end)` across regions, at most `limit` pairs.
    pub fn scan(&self, start: &[u8], end: &[u8], limit: usize) -> Result<KvPairs, ClientError> {
        let mut out = Vec::new();
        let mut from = start.to_vec();
        while out.len() < limit && (end.is_empty() || from.as_slice() < end) {
            let region = self.locate(&from)?.0;
            let region_end = if region.end_key.is_empty() || (!end.is_empty() && end < region.end_key.as_slice()) {
                end.to_vec()
            } else {
                region.end_key.clone()
            };
            let req = KvRequest::Scan { start: from.clone(), end: region_end.clone(), limit: limit - out.len() };
            match self.request(&from, &req)? {
                KvResponse::Pairs(pairs) => out.extend(pairs),
                other => return Err(ClientError::Unexpected(other)),
            }
            if region_end.is_empty() || region.end_key.is_empty() {
                break;
            }
            from = region_end;
        }
        Ok(out)
    }

    fn locate(&self, key: &[u8]) -> Result<(Region, Option<PeerMeta>), ClientError> {
        if let Some(hit) = self.cache.lookup(key) {
            return Ok(hit);
        }
        let (region, leader) = self.provider.locate(key).map_err(ClientError::Locate)?;
        self.cache.insert(region.clone(), leader);
        Ok((region, leader))
    }

    /// Sends `req` to the leader of `key`'s region, retrying on region errors.
    fn request(&self, key: &[u8], req: &KvRequest) -> Result<KvResponse, ClientError> {
        let start = Instant::now();
        let mut delay = self.backoff.base;
        let mut attempts = 0;
        let result = loop {
            attempts += 1;
            let (region, leader) = self.locate(key)?;
            let Some(peer) = leader.or_else(|| region.peers.first().copied()) else {
                break Err(ClientError::Other(format!("region {} has no peers", region.id)));
            };
            let ctx = RequestContext { region_id: region.id, epoch: region.epoch, peer };
            let err = match self.rpc.call(peer.store_id, &ctx, req) {
                Ok(resp) => break Ok(resp),
                Err(e) => e,
            };
            debug!("request to region {} on store {} failed: {:?}", region.id, peer.store_id, err);
            let retry_now = self.on_error(&region, peer, &err);
            if start.elapsed() >= self.backoff.budget {
                break Err(ClientError::Exhausted { attempts, elapsed: start.elapsed(), last: format!("{:?}", err) });
            }
            if !retry_now {
                thread::sleep(delay);
                delay = (delay * 2).min(self.backoff.max);
            }
        };
        metrics::CLIENT_REQUEST.observe(start.elapsed());
        result
    }

    /// Updates the cache after an error; returns true when the retry need not wait.
    fn on_error(&self, region: &Region, peer: PeerMeta, err: &RpcError) -> bool {
        match err {
            RpcError::Region(RegionError::NotLeader { leader: Some(l), .. }) => {
                self.cache.update_leader(region.id, *l);
                true
            }
            RpcError::Region(RegionError::NotLeader { leader: None, .. }) => {
                // an election is running; ask the provider again after the backoff
                self.cache.invalidate(region.id);
                false
            }
            RpcError::Region(RegionError::EpochNotMatch { current }) => {
                self.cache.invalidate(region.id);
                for r in current {
                    self.cache.insert(r.clone(), None);
                }
                true
            }
            RpcError::Region(RegionError::RegionNotFound { .. })
            | RpcError::Region(RegionError::KeyNotInRegion { .. }) => {
                self.cache.invalidate(region.id);
                true
            }
            RpcError::Unreachable(_) => {
                // try another peer; it answers NotLeader with the leader if it knows it
                if let Some(next) = region.peers.iter().copied().find(|p| p.store_id != peer.store_id) {
                    self.cache.update_leader(region.id, next);
                }
                false
            }
            RpcError::Region(RegionError::ServerIsBusy)
            | RpcError::Region(RegionError::Timeout)
            | RpcError::Other(_) => false,
        }
    }
}

#[cfg(test)]
mod tests;
