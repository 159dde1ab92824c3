pub mod apply;
pub mod msg;
pub mod peer;

pub use apply::{ApplyContext, ApplyDelegate, ApplyResult};
pub use msg::{AdminCmd, Entry, EntryType, Request};
pub use peer::Peer;
