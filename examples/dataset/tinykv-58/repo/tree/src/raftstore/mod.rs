pub mod apply;
pub mod msg;
pub mod peer;
pub mod peer_storage;
pub mod raft;
pub mod region;
pub mod snapshot;

pub use apply::{ApplyContext, ApplyDelegate, ApplyResult};
pub use msg::{AdminCmd, Entry, EntryType, Request};
pub use peer::Peer;
pub use raft::{RaftGroup, Role};
pub use region::Region;
