pub mod engine;
pub mod log_engine;
pub mod raft_engine;
pub mod traits;

pub use engine::{Engine, EngineSnapshot, WriteBatch};
pub use log_engine::LogEngine;
pub use raft_engine::MemRaftEngine;
pub use traits::{KvEngine, Mutable, RaftEngine, RaftState, Snapshot};
