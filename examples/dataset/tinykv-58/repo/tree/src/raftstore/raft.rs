//! The raft side of a region peer: the log (entries persisted in the raft engine plus an
//! unstable tail), the hard state, each follower's progress on the leader, and the
//! committed entries handed to the apply worker. Elections are driven by the peer's
//! ticks and are not part of this module.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use log::{debug, info, warn};

use super::apply::ApplyState;
use super::msg::{Entry, EntryType};
use crate::metrics;
use crate::storage::traits::{EngineError, RaftEngine, RaftState};
use crate::transport::{MessageType, RaftMessage};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Follower,
    Candidate,
    Leader,
}

/// What the leader knows about one follower's log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub matched: u64,
    pub next: u64,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ProposeError {
    #[error("not leader (leader is {0:?})")]
    NotLeader(Option<u64>),
    #[error("leadership is being transferred to {0}")]
    Transferring(u64),
}

pub struct RaftGroup<E: RaftEngine> {
    pub region_id: u64,
    pub peer_id: u64,
    pub term: u64,
    pub vote: u64,
    pub role: Role,
    pub leader_id: Option<u64>,
    pub committed: u64,
    /// The last index handed to the apply worker.
    handed_off: u64,
    last_index: u64,
    /// Index and term of the last entry compacted away.
    truncated: (u64, u64),
    /// Appended entries not yet written to the raft engine, contiguous up to last_index.
    unstable: Vec<Entry>,
    peers: Vec<u64>,
    progress: HashMap<u64, Progress>,
    lead_transferee: Option<u64>,
    engine: Arc<E>,
    /// Messages to send once the unstable entries are persisted.
    pub msgs: Vec<RaftMessage>,
}

impl<E: RaftEngine> RaftGroup<E> {
    /// Loads the group's state. The apply state tells where the log was truncated: the
    /// truncated entry's term is what an append after it is checked against.
    pub fn new(
        region_id: u64,
        peer_id: u64,
        peers: Vec<u64>,
        engine: Arc<E>,
        apply_state: &ApplyState,
    ) -> Result<Self, EngineError> {
        let state = engine.get_raft_state(region_id)?.unwrap_or_default();
        let applied = apply_state.applied_index;
        let last_index = engine.last_index(region_id).unwrap_or(state.last_index).max(applied);
        Ok(RaftGroup {
            region_id,
            peer_id,
            term: state.term,
            vote: state.vote,
            role: Role::Follower,
            leader_id: None,
            committed: state.commit.max(applied),
            handed_off: applied,
            last_index,
            truncated: (apply_state.truncated_index, apply_state.truncated_term),
            unstable: Vec::new(),
            peers,
            progress: HashMap::new(),
            lead_transferee: None,
            engine,
            msgs: Vec::new(),
        })
    }

    fn tag(&self) -> String {
        format!("[region {}] {}", self.region_id, self.peer_id)
    }

    pub fn last_index(&self) -> u64 {
        self.last_index
    }

    /// The term of the entry at `index`, if the log still holds it.
    pub fn term_of(&self, index: u64) -> Option<u64> {
        let (truncated_index, truncated_term) = self.truncated;
        if index == truncated_index {
            return Some(truncated_term);
        }
        if index < truncated_index {
            return None;
        }
        if let Some(first) = self.unstable.first() {
            if index >= first.index {
                return self.unstable.get((index - first.index) as usize).map(|e| e.term);
            }
        }
        let ents = self.engine.fetch_entries(self.region_id, index, index + 1, 0).ok()?;
        ents.first().map(|e| e.term)
    }

    /// Entries `[lo, hi)` from the engine and the unstable tail.
    fn entries(&self, lo: u64, hi: u64, max_size: usize) -> Result<Vec<Entry>, EngineError> {
        let unstable_from = self.unstable.first().map(|e| e.index).unwrap_or(self.last_index + 1);
        let mut out = Vec::new();
        if lo < unstable_from {
            out = self.engine.fetch_entries(self.region_id, lo, hi.min(unstable_from), max_size)?;
            if (out.len() as u64) < hi.min(unstable_from) - lo {
                return Ok(out); // size limit reached
            }
        }
        for e in &self.unstable {
            if e.index >= lo.max(unstable_from) && e.index < hi {
                out.push(e.clone());
            }
        }
        Ok(out)
    }

    pub fn become_follower(&mut self, term: u64, leader_id: Option<u64>) {
        if term > self.term {
            self.term = term;
            self.vote = 0;
        }
        self.role = Role::Follower;
        self.leader_id = leader_id;
        self.lead_transferee = None;
        self.progress.clear();
    }

    /// Becomes leader of the current term and proposes an empty entry: entries of earlier
    /// terms can only be committed through an entry of the leader's own term.
    pub fn become_leader(&mut self) {
        self.role = Role::Leader;
        self.leader_id = Some(self.peer_id);
        self.lead_transferee = None;
        self.progress = self.peers.iter().map(|&p| (p, Progress { matched: 0, next: self.last_index + 1 })).collect();
        self.progress.insert(self.peer_id, Progress { matched: self.last_index, next: self.last_index + 1 });
        let index = self.append(Bytes::new(), EntryType::Normal);
        debug!("{} proposed empty entry at index {} term {}", self.tag(), index, self.term);
        self.broadcast_append();
    }

    /// Proposes a command; it returns the index the command will have if committed.
    pub fn propose(&mut self, data: Bytes, entry_type: EntryType) -> Result<u64, ProposeError> {
        if self.role != Role::Leader {
            return Err(ProposeError::NotLeader(self.leader_id));
        }
        if let Some(to) = self.lead_transferee {
            return Err(ProposeError::Transferring(to));
        }
        let index = self.append(data, entry_type);
        metrics::PROPOSALS.inc();
        self.broadcast_append();
        Ok(index)
    }

    fn append(&mut self, data: Bytes, entry_type: EntryType) -> u64 {
        self.last_index += 1;
        self.unstable.push(Entry { index: self.last_index, term: self.term, entry_type, data });
        let me = self.peer_id;
        if let Some(pr) = self.progress.get_mut(&me) {
            pr.matched = self.last_index;
            pr.next = self.last_index + 1;
        }
        self.maybe_commit();
        self.last_index
    }

    /// Writes the unstable entries and the hard state to the raft engine.
    pub fn persist(&mut self) -> Result<(), EngineError> {
        if !self.unstable.is_empty() {
            self.engine.append(self.region_id, &self.unstable)?;
            self.unstable.clear();
        }
        let state = RaftState { term: self.term, vote: self.vote, commit: self.committed, last_index: self.last_index };
        self.engine.put_raft_state(self.region_id, state)
    }

    pub fn broadcast_append(&mut self) {
        let followers: Vec<u64> = self.peers.iter().copied().filter(|&p| p != self.peer_id).collect();
        for to in followers {
            self.send_append(to);
        }
    }

    fn send_append(&mut self, to: u64) {
        let Some(pr) = self.progress.get(&to).copied() else { return };
        let prev = pr.next - 1;
        let Some(prev_term) = self.term_of(prev) else {
            warn!("{} entry {} for peer {} is compacted, a snapshot is needed", self.tag(), prev, to);
            return;
        };
        let entries = match self.entries(pr.next, self.last_index + 1, 1 << 20) {
            Ok(e) => e,
            Err(e) => {
                warn!("{} cannot read entries for peer {}: {}", self.tag(), to, e);
                return;
            }
        };
        let mut m = RaftMessage::new(self.region_id, self.peer_id, to, MessageType::Append, self.term);
        m.index = prev;
        m.log_term = prev_term;
        m.commit = self.committed;
        m.entries = entries;
        self.msgs.push(m);
    }

    /// Handles a message of this region's group.
    pub fn step(&mut self, m: RaftMessage) {
        if m.term > self.term {
            let leader = matches!(m.msg_type, MessageType::Append | MessageType::Heartbeat).then_some(m.from_peer);
            self.become_follower(m.term, leader);
        } else if m.term < self.term {
            debug!("{} ignoring {:?} of stale term {} from {}", self.tag(), m.msg_type, m.term, m.from_peer);
            return;
        }
        match m.msg_type {
            MessageType::Append => self.handle_append(m),
            MessageType::AppendResponse => self.handle_append_response(m),
            MessageType::Heartbeat => {
                self.leader_id = Some(m.from_peer);
                self.commit_to(m.commit.min(self.last_index));
                let resp = RaftMessage::new(
                    self.region_id,
                    self.peer_id,
                    m.from_peer,
                    MessageType::HeartbeatResponse,
                    self.term,
                );
                self.msgs.push(resp);
            }
            MessageType::TimeoutNow => info!("{} asked to campaign by {}", self.tag(), m.from_peer),
            other => debug!("{} ignoring {:?}", self.tag(), other),
        }
    }

    fn handle_append(&mut self, m: RaftMessage) {
        self.leader_id = Some(m.from_peer);
        let mut resp =
            RaftMessage::new(self.region_id, self.peer_id, m.from_peer, MessageType::AppendResponse, self.term);
        if self.term_of(m.index) != Some(m.log_term) {
            resp.index = m.index;
            resp.reject = true;
            resp.reject_hint = self.last_index;
            self.msgs.push(resp);
            return;
        }
        let last_new = m.index + m.entries.len() as u64;
        // skip the entries the log already holds with the same term
        if let Some(pos) = m.entries.iter().position(|e| self.term_of(e.index) != Some(e.term)) {
            let first = m.entries[pos].index;
            if first <= self.committed {
                panic!("{} entry {} conflicts with committed index {}", self.tag(), first, self.committed);
            }
            self.unstable.retain(|e| e.index < first);
            self.unstable.extend_from_slice(&m.entries[pos..]);
            self.last_index = last_new;
        }
        self.commit_to(m.commit.min(last_new));
        resp.index = last_new;
        self.msgs.push(resp);
    }

    fn handle_append_response(&mut self, m: RaftMessage) {
        if self.role != Role::Leader {
            return;
        }
        let Some(pr) = self.progress.get_mut(&m.from_peer) else { return };
        if m.reject {
            pr.next = (m.reject_hint + 1).min(pr.next).max(1);
            self.send_append(m.from_peer);
            return;
        }
        if m.index > pr.matched {
            pr.matched = m.index;
            pr.next = m.index + 1;
            self.maybe_commit();
        }
        if self.lead_transferee == Some(m.from_peer) && m.index == self.last_index {
            self.send_timeout_now(m.from_peer);
        }
    }

    /// Commits the highest index a quorum holds, if it is of the current term.
    fn maybe_commit(&mut self) {
        let mut matched: Vec<u64> =
            self.peers.iter().map(|p| self.progress.get(p).map(|pr| pr.matched).unwrap_or(0)).collect();
        matched.sort_unstable_by(|a, b| b.cmp(a));
        let quorum = matched[self.peers.len() / 2];
        if quorum > self.committed && self.term_of(quorum) == Some(self.term) {
            self.commit_to(quorum);
        }
    }

    fn commit_to(&mut self, index: u64) {
        if index > self.committed {
            self.committed = index;
            debug!("{} committed index {}", self.tag(), index);
        }
    }

    /// Committed entries not handed to the apply worker yet, at most `max_size` bytes.
    pub fn take_committed_entries(&mut self, max_size: usize) -> Result<Vec<Entry>, EngineError> {
        if self.committed <= self.handed_off {
            return Ok(Vec::new());
        }
        let ents = self.entries(self.handed_off + 1, self.committed + 1, max_size)?;
        if let Some(last) = ents.last() {
            self.handed_off = last.index;
            metrics::APPLY_ENTRIES.add(ents.len() as u64);
        }
        Ok(ents)
    }

    /// Starts a leader transfer: once `to` holds the whole log it is told to campaign.
    /// Proposals are refused meanwhile so that the log does not grow under the transfer.
    pub fn transfer_leader(&mut self, to: u64) {
        if self.role != Role::Leader || to == self.peer_id || !self.peers.contains(&to) {
            return;
        }
        info!("{} transferring leadership to {}", self.tag(), to);
        self.lead_transferee = Some(to);
        if self.progress.get(&to).map(|pr| pr.matched) == Some(self.last_index) {
            self.send_timeout_now(to);
        } else {
            self.send_append(to);
        }
    }

    fn send_timeout_now(&mut self, to: u64) {
        self.msgs.push(RaftMessage::new(self.region_id, self.peer_id, to, MessageType::TimeoutNow, self.term));
    }

    pub fn progress(&self, peer: u64) -> Option<Progress> {
        self.progress.get(&peer).copied()
    }
}
