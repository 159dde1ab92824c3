//! The apply loop: committed entries of a region are executed against the engine in log
//! order, and the applied index and term are reported back to the peer.

use log::{debug, info, warn};

use super::msg::{AdminCmd, ApplyRes, Entry, EntryType, ExecResult, Request};
use crate::storage::{Engine, WriteBatch};

/// Applied state of a region, persisted with every write batch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApplyState {
    pub applied_index: u64,
    pub truncated_index: u64,
    pub truncated_term: u64,
}

impl ApplyState {
    pub fn set_applied_index(&mut self, index: u64) {
        self.applied_index = index;
    }
}

/// Per-batch context shared by the delegates of one apply round.
pub struct ApplyContext {
    pub engine: Engine,
    pub wb: WriteBatch,
    pub committed_count: usize,
    /// Flush the write batch when it holds this many operations.
    pub max_batch_ops: usize,
}

impl ApplyContext {
    pub fn new(engine: Engine) -> ApplyContext {
        ApplyContext { engine, wb: WriteBatch::default(), committed_count: 0, max_batch_ops: 256 }
    }

    fn flush(&mut self) {
        if !self.wb.is_empty() {
            let wb = std::mem::take(&mut self.wb);
            debug!("flushing write batch of {} ops", wb.len());
            self.engine.write(wb);
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
pub enum ApplyResult {
    None,
    Res(ExecResult),
    /// The write batch must be flushed before going on (an admin command reads the engine).
    Yield,
}

/// Applies the entries of one region.
pub struct ApplyDelegate {
    pub region_id: u64,
    pub peer_id: u64,
    pub apply_state: ApplyState,
    pub applied_term: u64,
    pub peers: Vec<u64>,
    pub stopped: bool,
}

impl ApplyDelegate {
    pub fn new(region_id: u64, peer_id: u64, peers: Vec<u64>, apply_state: ApplyState, applied_term: u64) -> Self {
        ApplyDelegate { region_id, peer_id, apply_state, applied_term, peers, stopped: false }
    }

    fn tag(&self) -> String {
        format!("[region {}] {}", self.region_id, self.peer_id)
    }

    /// Applies a batch of committed entries and returns what the peer must learn.
    pub fn handle_raft_committed_entries(&mut self, ctx: &mut ApplyContext, entries: Vec<Entry>) -> ApplyRes {
        let mut results = Vec::new();
        for entry in entries {
            if self.stopped {
                warn!("{} is stopped, skip entry {}", self.tag(), entry.index);
                break;
            }
            let expected = self.apply_state.applied_index + 1;
            if entry.index < expected {
                debug!("{} skip already applied entry {}", self.tag(), entry.index);
                continue;
            }
            let res = match entry.entry_type {
                EntryType::Normal => self.handle_raft_entry_normal(ctx, &entry),
                EntryType::ConfChange => self.handle_raft_entry_conf_change(ctx, &entry),
            };
            match res {
                ApplyResult::None => {}
                ApplyResult::Res(r) => results.push(r),
                ApplyResult::Yield => ctx.flush(),
            }
            if ctx.wb.len() >= ctx.max_batch_ops {
                ctx.flush();
            }
        }
        ctx.flush();
        ApplyRes {
            region_id: self.region_id,
            applied_index: self.apply_state.applied_index,
            applied_term: self.applied_term,
            exec_results: results,
        }
    }

    fn handle_raft_entry_normal(&mut self, ctx: &mut ApplyContext, entry: &Entry) -> ApplyResult {
        let index = entry.get_index();
        let term = entry.get_term();
        let data = entry.get_data();

        if data.is_empty() {
            // A new leader proposes an empty entry; there is nothing to execute.
            return ApplyResult::None;
        }

        let result = match Request::decode(data) {
            Some(req) => self.exec_raft_cmd(ctx, index, req),
            None => {
                warn!("{} cannot decode entry {} ({} bytes), skipping", self.tag(), index, data.len());
                ApplyResult::None
            }
        };
        self.apply_state.set_applied_index(index);
        self.applied_term = term;
        ctx.committed_count += 1;
        result
    }

    fn handle_raft_entry_conf_change(&mut self, ctx: &mut ApplyContext, entry: &Entry) -> ApplyResult {
        let index = entry.get_index();
        let result = match Request::decode(entry.get_data()) {
            Some(Request::Admin(cmd @ AdminCmd::ChangePeer { .. })) => self.exec_admin_cmd(ctx, index, cmd),
            other => {
                warn!("{} unexpected conf change payload {:?} at {}", self.tag(), other, index);
                ApplyResult::None
            }
        };
        self.apply_state.set_applied_index(index);
        self.applied_term = entry.get_term();
        result
    }

    fn exec_raft_cmd(&mut self, ctx: &mut ApplyContext, index: u64, req: Request) -> ApplyResult {
        match req {
            Request::Put { key, value } => {
                ctx.wb.put(&data_key(self.region_id, &key), &value);
                ApplyResult::None
            }
            Request::Delete { key } => {
                ctx.wb.delete(&data_key(self.region_id, &key));
                ApplyResult::None
            }
            Request::Admin(cmd) => self.exec_admin_cmd(ctx, index, cmd),
        }
    }

    fn exec_admin_cmd(&mut self, ctx: &mut ApplyContext, index: u64, cmd: AdminCmd) -> ApplyResult {
        match cmd {
            AdminCmd::CompactLog { compact_index, compact_term } => {
                if compact_index <= self.apply_state.truncated_index {
                    debug!("{} compact index {} already truncated", self.tag(), compact_index);
                    return ApplyResult::None;
                }
                if compact_index > self.apply_state.applied_index {
                    warn!("{} cannot compact to {}: applied {}", self.tag(), compact_index, self.apply_state.applied_index);
                    return ApplyResult::None;
                }
                ctx.flush();
                self.apply_state.truncated_index = compact_index;
                self.apply_state.truncated_term = compact_term;
                info!("{} compacted log to {} at {}", self.tag(), compact_index, index);
                ApplyResult::Res(ExecResult::CompactLog { first_index: compact_index + 1 })
            }
            AdminCmd::ChangePeer { add, peer_id } => {
                if add {
                    if !self.peers.contains(&peer_id) {
                        self.peers.push(peer_id);
                    }
                } else {
                    self.peers.retain(|p| *p != peer_id);
                    if peer_id == self.peer_id {
                        self.stopped = true;
                    }
                }
                info!("{} change peer add={} peer={} at {}, peers {:?}", self.tag(), add, peer_id, index, self.peers);
                ApplyResult::Res(ExecResult::ChangePeer { add, peer_id })
            }
        }
    }
}

/// Keys of a region in the engine: `z` + region id + user key.
pub fn data_key(region_id: u64, key: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(9 + key.len());
    k.push(b'z');
    k.extend_from_slice(&region_id.to_be_bytes());
    k.extend_from_slice(key);
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn put(index: u64, term: u64, key: &str) -> Entry {
        let mut data = vec![b'p'];
        for f in [key.as_bytes(), b"v"] {
            data.extend_from_slice(&(f.len() as u32).to_be_bytes());
            data.extend_from_slice(f);
        }
        Entry { index, term, entry_type: EntryType::Normal, data: Bytes::from(data) }
    }

    #[test]
    fn applies_puts_in_order() {
        let engine = Engine::new();
        let mut ctx = ApplyContext::new(engine.clone());
        let mut d = ApplyDelegate::new(1, 1, vec![1, 2, 3], ApplyState::default(), 0);
        let res = d.handle_raft_committed_entries(&mut ctx, vec![put(1, 1, "a"), put(2, 1, "b")]);
        assert_eq!(res.applied_index, 2);
        assert_eq!(engine.get(&data_key(1, b"b")), Some(b"v".to_vec()));
    }
}
