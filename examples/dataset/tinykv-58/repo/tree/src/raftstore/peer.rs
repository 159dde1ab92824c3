//! A region's peer on the raft side: it tracks leadership and serves reads once the
//! applied state is known to be current.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use log::{debug, info, warn};

use super::msg::{ApplyRes, ExecResult};
use crate::storage::Engine;

/// A read waiting until the peer may serve it.
pub struct PendingRead {
    pub id: u64,
    pub key: Vec<u8>,
    pub read_index: u64,
    pub since: Instant,
    pub callback: Box<dyn FnOnce(Result<Option<Vec<u8>>, ReadError>) + Send>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    NotLeader { leader: Option<u64> },
    Timeout,
}

pub struct Peer {
    pub region_id: u64,
    pub peer_id: u64,
    pub term: u64,
    pub leader_id: Option<u64>,
    pub applied_index: u64,
    pub applied_term: u64,
    pub first_index: u64,
    pending_reads: VecDeque<PendingRead>,
    engine: Engine,
    read_timeout: Duration,
}

impl Peer {
    pub fn new(region_id: u64, peer_id: u64, engine: Engine) -> Peer {
        Peer {
            region_id,
            peer_id,
            term: 0,
            leader_id: None,
            applied_index: 0,
            applied_term: 0,
            first_index: 1,
            pending_reads: VecDeque::new(),
            engine,
            read_timeout: Duration::from_secs(10),
        }
    }

    pub fn is_leader(&self) -> bool {
        self.leader_id == Some(self.peer_id)
    }

    pub fn on_role_changed(&mut self, term: u64, leader_id: Option<u64>) {
        self.term = term;
        self.leader_id = leader_id;
        info!("[region {}] {} term {} leader {:?}", self.region_id, self.peer_id, term, leader_id);
        if !self.is_leader() {
            for read in self.pending_reads.drain(..) {
                (read.callback)(Err(ReadError::NotLeader { leader: leader_id }));
            }
        }
    }

    /// A leader may serve reads only after it applied an entry of its own term: before that,
    /// entries committed by the previous leader may not be applied here yet.
    pub fn ready_to_handle_read(&self) -> bool {
        self.applied_term == self.term
    }

    /// Queues a read at the current commit index (the read index).
    pub fn read(&mut self, id: u64, key: Vec<u8>, read_index: u64, callback: PendingRead) {
        let _ = (id, key, read_index);
        if !self.is_leader() {
            (callback.callback)(Err(ReadError::NotLeader { leader: self.leader_id }));
            return;
        }
        self.pending_reads.push_back(callback);
        self.serve_reads();
    }

    /// Called with the result of every apply batch.
    pub fn on_apply_res(&mut self, res: ApplyRes) {
        if res.applied_index < self.applied_index {
            warn!("[region {}] stale apply result {} < {}", self.region_id, res.applied_index, self.applied_index);
            return;
        }
        self.applied_index = res.applied_index;
        self.applied_term = res.applied_term;
        for r in res.exec_results {
            match r {
                ExecResult::CompactLog { first_index } => self.first_index = first_index,
                ExecResult::ChangePeer { add, peer_id } => {
                    debug!("[region {}] peer {} {}", self.region_id, peer_id, if add { "added" } else { "removed" })
                }
            }
        }
        self.serve_reads();
    }

    fn serve_reads(&mut self) {
        if !self.ready_to_handle_read() {
            debug!(
                "[region {}] {} pending reads wait: applied term {} != term {}",
                self.region_id,
                self.pending_reads.len(),
                self.applied_term,
                self.term
            );
            return;
        }
        while let Some(read) = self.pending_reads.front() {
            if read.read_index > self.applied_index {
                break;
            }
            let read = self.pending_reads.pop_front().unwrap();
            let value = self.engine.get(&super::apply::data_key(self.region_id, &read.key));
            (read.callback)(Ok(value));
        }
    }

    /// Fails reads that waited longer than the read timeout.
    pub fn on_tick(&mut self, now: Instant) {
        while let Some(read) = self.pending_reads.front() {
            if now.duration_since(read.since) < self.read_timeout {
                break;
            }
            let read = self.pending_reads.pop_front().unwrap();
            warn!(
                "[region {}] read {} timed out after {:?}: applied index {} term {}, term {}",
                self.region_id,
                read.id,
                self.read_timeout,
                self.applied_index,
                self.applied_term,
                self.term
            );
            (read.callback)(Err(ReadError::Timeout));
        }
    }
}
