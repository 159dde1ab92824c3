//! Frames on a store-to-store connection. Each frame carries a batch of raft messages:
//!
//! ```text
//! u16 magic "tv" | u8 version | u8 flags | u32 payload length | u32 crc32 | payload
//! payload = u32 message count, then the messages
//! ```

use std::io::{self, Read, Write};

use super::message::RaftMessage;
use crate::codec::{BufMutExt, Reader};

pub const MAGIC: u16 = 0x7476;
pub const VERSION: u8 = 1;
pub const HEADER_LEN: usize = 12;
/// A frame larger than this is a protocol error, not a big batch.
pub const MAX_FRAME: usize = 64 << 20;

#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("io: {0}")]
    Io(#[from] io::Error),
    #[error("bad magic {0:#06x}")]
    BadMagic(u16),
    #[error("unsupported version {0}")]
    Version(u8),
    #[error("frame of {0} bytes exceeds the limit")]
    TooLarge(usize),
    #[error("checksum mismatch")]
    Checksum,
    #[error("malformed message batch")]
    Malformed,
}

/// Encodes a batch of messages into one frame.
pub fn encode_frame(msgs: &[RaftMessage]) -> Vec<u8> {
    let mut payload = Vec::with_capacity(4 + msgs.iter().map(RaftMessage::size).sum::<usize>());
    payload.put_u32_le(msgs.len() as u32);
    for m in msgs {
        m.encode(&mut payload);
    }
    let mut frame = Vec::with_capacity(HEADER_LEN + payload.len());
    frame.extend_from_slice(&MAGIC.to_le_bytes());
    frame.push(VERSION);
    frame.push(0);
    frame.put_u32_le(payload.len() as u32);
    frame.put_u32_le(crc32fast::hash(&payload));
    frame.extend_from_slice(&payload);
    frame
}

pub fn write_frame(w: &mut impl Write, msgs: &[RaftMessage]) -> Result<(), FrameError> {
    w.write_all(&encode_frame(msgs))?;
    Ok(())
}

/// Reads one frame; `Ok(None)` is a clean end of stream between frames.
pub fn read_frame(r: &mut impl Read) -> Result<Option<Vec<RaftMessage>>, FrameError> {
    let mut header = [0u8; HEADER_LEN];
    match r.read_exact(&mut header) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e.into()),
    }
    let magic = u16::from_le_bytes([header[0], header[1]]);
    if magic != MAGIC {
        return Err(FrameError::BadMagic(magic));
    }
    if header[2] != VERSION {
        return Err(FrameError::Version(header[2]));
    }
    let len = u32::from_le_bytes(header[4..8].try_into().unwrap()) as usize;
    if len > MAX_FRAME {
        return Err(FrameError::TooLarge(len));
    }
    let crc = u32::from_le_bytes(header[8..12].try_into().unwrap());
    let mut payload = vec![0u8; len];
    r.read_exact(&mut payload)?;
    if crc32fast::hash(&payload) != crc {
        return Err(FrameError::Checksum);
    }
    let mut rd = Reader::new(&payload);
    let n = rd.u32().ok_or(FrameError::Malformed)? as usize;
    let mut msgs = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        msgs.push(RaftMessage::decode(&mut rd).ok_or(FrameError::Malformed)?);
    }
    if rd.remaining() != 0 {
        return Err(FrameError::Malformed);
    }
    Ok(Some(msgs))
}
