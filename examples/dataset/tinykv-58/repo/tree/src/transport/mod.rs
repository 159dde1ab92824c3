//! Store-to-store raft transport: framed batches of raft messages over TCP, one
//! connection and one sender thread per target store.

pub mod codec;
pub mod conn;
pub mod message;

pub use conn::{RaftListener, StaticResolver, StoreResolver, TcpTransport, Transport, TransportError};
pub use message::{MessageType, RaftMessage};
