//! Little-endian encoding helpers shared by the raft log engine, the transport and the
//! snapshot files.

use bytes::Bytes;

use crate::raftstore::msg::{Entry, EntryType};

/// Appends fixed-width integers and length-prefixed byte strings.
pub trait BufMutExt {
    fn put_u8_le(&mut self, v: u8);
    fn put_u32_le(&mut self, v: u32);
    fn put_u64_le(&mut self, v: u64);
    /// A u32 length, then the bytes.
    fn put_bytes(&mut self, b: &[u8]);
}

impl BufMutExt for Vec<u8> {
    fn put_u8_le(&mut self, v: u8) {
        self.push(v);
    }
    fn put_u32_le(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u64_le(&mut self, v: u64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_bytes(&mut self, b: &[u8]) {
        self.put_u32_le(b.len() as u32);
        self.extend_from_slice(b);
    }
}

/// Reads what `BufMutExt` wrote; every read returns `None` past the end.
pub struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf }
    }

    pub fn remaining(&self) -> usize {
        self.buf.len()
    }

    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.buf.len() < n {
            return None;
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Some(head)
    }

    pub fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    pub fn u32(&mut self) -> Option<u32> {
        self.take(4).map(|b| u32::from_le_bytes(b.try_into().unwrap()))
    }

    pub fn u64(&mut self) -> Option<u64> {
        self.take(8).map(|b| u64::from_le_bytes(b.try_into().unwrap()))
    }

    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}

/// Encodes a raft entry: index, term, type, data.
pub fn put_entry(buf: &mut Vec<u8>, e: &Entry) {
    buf.put_u64_le(e.index);
    buf.put_u64_le(e.term);
    buf.put_u8_le(match e.entry_type {
        EntryType::Normal => 0,
        EntryType::ConfChange => 1,
    });
    buf.put_bytes(&e.data);
}

/// Decodes what `put_entry` wrote.
pub fn read_entry(r: &mut Reader<'_>) -> Option<Entry> {
    let index = r.u64()?;
    let term = r.u64()?;
    let entry_type = match r.u8()? {
        0 => EntryType::Normal,
        1 => EntryType::ConfChange,
        _ => return None,
    };
    let data = Bytes::copy_from_slice(r.bytes()?);
    Some(Entry { index, term, entry_type, data })
}

/// Size of an encoded entry, for batching limits.
pub fn entry_size(e: &Entry) -> usize {
    8 + 8 + 1 + 4 + e.data.len()
}
