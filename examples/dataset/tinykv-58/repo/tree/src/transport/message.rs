//! Raft messages between stores and their wire encoding.

use crate::codec::{self, BufMutExt, Reader};
use crate::raftstore::msg::Entry;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageType {
    Append,
    AppendResponse,
    Heartbeat,
    HeartbeatResponse,
    RequestVote,
    RequestVoteResponse,
    /// Tells the target to campaign at once; the last step of a leader transfer.
    TimeoutNow,
    /// Announces that a snapshot file is ready to be fetched.
    Snapshot,
}

impl MessageType {
    fn to_u8(self) -> u8 {
        match self {
            MessageType::Append => 1,
            MessageType::AppendResponse => 2,
            MessageType::Heartbeat => 3,
            MessageType::HeartbeatResponse => 4,
            MessageType::RequestVote => 5,
            MessageType::RequestVoteResponse => 6,
            MessageType::TimeoutNow => 7,
            MessageType::Snapshot => 8,
        }
    }

    fn from_u8(v: u8) -> Option<MessageType> {
        Some(match v {
            1 => MessageType::Append,
            2 => MessageType::AppendResponse,
            3 => MessageType::Heartbeat,
            4 => MessageType::HeartbeatResponse,
            5 => MessageType::RequestVote,
            6 => MessageType::RequestVoteResponse,
            7 => MessageType::TimeoutNow,
            8 => MessageType::Snapshot,
            _ => return None,
        })
    }
}

/// A message of one region's raft group, addressed by peer and by store.
#[derive(Debug, Clone)]
pub struct RaftMessage {
    pub region_id: u64,
    pub from_peer: u64,
    pub to_peer: u64,
    pub from_store: u64,
    pub to_store: u64,
    pub msg_type: MessageType,
    pub term: u64,
    /// For appends: the index and term of the entry before `entries`.
    pub index: u64,
    pub log_term: u64,
    pub commit: u64,
    pub reject: bool,
    /// The rejecting follower's last index, where the leader should probe next.
    pub reject_hint: u64,
    pub entries: Vec<Entry>,
}

impl RaftMessage {
    pub fn new(region_id: u64, from_peer: u64, to_peer: u64, msg_type: MessageType, term: u64) -> RaftMessage {
        RaftMessage {
            region_id,
            from_peer,
            to_peer,
            from_store: 0,
            to_store: 0,
            msg_type,
            term,
            index: 0,
            log_term: 0,
            commit: 0,
            reject: false,
            reject_hint: 0,
            entries: Vec::new(),
        }
    }

    /// Encoded size, for batching.
    pub fn size(&self) -> usize {
        8 * 10 + 2 + 4 + self.entries.iter().map(codec::entry_size).sum::<usize>()
    }

    pub fn encode(&self, buf: &mut Vec<u8>) {
        for v in [self.region_id, self.from_peer, self.to_peer, self.from_store, self.to_store] {
            buf.put_u64_le(v);
        }
        buf.put_u8_le(self.msg_type.to_u8());
        for v in [self.term, self.index, self.log_term, self.commit, self.reject_hint] {
            buf.put_u64_le(v);
        }
        buf.put_u8_le(self.reject as u8);
        buf.put_u32_le(self.entries.len() as u32);
        for e in &self.entries {
            codec::put_entry(buf, e);
        }
    }

    pub fn decode(r: &mut Reader<'_>) -> Option<RaftMessage> {
        let mut m = RaftMessage::new(r.u64()?, r.u64()?, r.u64()?, MessageType::Append, 0);
        m.from_store = r.u64()?;
        m.to_store = r.u64()?;
        m.msg_type = MessageType::from_u8(r.u8()?)?;
        m.term = r.u64()?;
        m.index = r.u64()?;
        m.log_term = r.u64()?;
        m.commit = r.u64()?;
        m.reject_hint = r.u64()?;
        m.reject = r.u8()? != 0;
        let n = r.u32()? as usize;
        if n > r.remaining() {
            return None;
        }
        for _ in 0..n {
            m.entries.push(codec::read_entry(r)?);
        }
        Some(m)
    }
}
