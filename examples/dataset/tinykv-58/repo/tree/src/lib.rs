//! tinykv: regions of a key space, each replicated by its own raft group.
//!
//! A region's peers apply committed entries in the apply loop (`raftstore::apply`), and
//! serve reads through `raftstore::peer` once the leader is sure its state is current.

pub mod client;
pub mod codec;
pub mod config;
pub mod metrics;
pub mod raftstore;
pub mod storage;
pub mod transport;
