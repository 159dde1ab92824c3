//! Messages between the raft worker and the apply worker.

use bytes::Bytes;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryType {
    Normal,
    ConfChange,
}

/// A committed raft log entry handed to the apply worker.
#[derive(Debug, Clone)]
pub struct Entry {
    pub index: u64,
    pub term: u64,
    pub entry_type: EntryType,
    pub data: Bytes,
}

impl Entry {
    pub fn get_index(&self) -> u64 {
        self.index
    }

    pub fn get_term(&self) -> u64 {
        self.term
    }

    pub fn get_data(&self) -> &[u8] {
        &self.data
    }
}

/// A write command, decoded from an entry's data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    Put { key: Vec<u8>, value: Vec<u8> },
    Delete { key: Vec<u8> },
    Admin(AdminCmd),
}

/// Administrative commands that change the region's raft state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdminCmd {
    CompactLog { compact_index: u64, compact_term: u64 },
    ChangePeer { add: bool, peer_id: u64 },
}

impl Request {
    /// Decodes the tiny wire format: tag byte, then length-prefixed fields.
    pub fn decode(data: &[u8]) -> Option<Request> {
        let (&tag, rest) = data.split_first()?;
        let mut fields = Vec::new();
        let mut rest = rest;
        while rest.len() >= 4 {
            let len = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
            if rest.len() < 4 + len {
                return None;
            }
            fields.push(rest[4..4 + len].to_vec());
            rest = &rest[4 + len..];
        }
        let u64_of = |f: &Vec<u8>| -> Option<u64> { Some(u64::from_be_bytes(f.as_slice().try_into().ok()?)) };
        match tag {
            b'p' if fields.len() == 2 => Some(Request::Put { key: fields[0].clone(), value: fields[1].clone() }),
            b'd' if fields.len() == 1 => Some(Request::Delete { key: fields[0].clone() }),
            b'c' if fields.len() == 2 => Some(Request::Admin(AdminCmd::CompactLog {
                compact_index: u64_of(&fields[0])?,
                compact_term: u64_of(&fields[1])?,
            })),
            b'm' if fields.len() == 2 => Some(Request::Admin(AdminCmd::ChangePeer {
                add: fields[0] == b"1",
                peer_id: u64_of(&fields[1])?,
            })),
            _ => None,
        }
    }
}

/// What the apply worker reports back to the peer after a batch.
#[derive(Debug, Clone, Default)]
pub struct ApplyRes {
    pub region_id: u64,
    pub applied_index: u64,
    pub applied_term: u64,
    pub exec_results: Vec<ExecResult>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecResult {
    CompactLog { first_index: u64 },
    ChangePeer { add: bool, peer_id: u64 },
}
