use bytes::Bytes;
use tinykv::raftstore::msg::{Entry, EntryType};
use tinykv::storage::traits::{RaftEngine, RaftState};
use tinykv::storage::{LogEngine, MemRaftEngine};

fn entries(term: u64, from: u64, to: u64) -> Vec<Entry> {
    (from..=to)
        .map(|i| Entry { index: i, term, entry_type: EntryType::Normal, data: Bytes::from(vec![i as u8; 16]) })
        .collect()
}

/// Both engines must agree on the same sequence of writes.
fn exercise(engine: &dyn RaftEngine) {
    engine.append(7, &entries(1, 6, 20)).unwrap();
    // a new leader replaces the uncommitted tail from 15 on
    engine.append(7, &entries(2, 15, 16)).unwrap();
    assert_eq!(engine.last_index(7), Some(16));
    let got = engine.fetch_entries(7, 14, 17, usize::MAX).unwrap();
    assert_eq!(got.iter().map(|e| e.term).collect::<Vec<_>>(), vec![1, 2, 2]);

    // the size limit still returns at least one entry
    assert_eq!(engine.fetch_entries(7, 6, 17, 0).unwrap().len(), 1);

    assert_eq!(engine.gc(7, 10).unwrap(), 4);
    assert_eq!(engine.first_index(7), Some(10));
    assert!(engine.fetch_entries(7, 8, 12, usize::MAX).is_err());

    let st = RaftState { term: 2, vote: 3, commit: 14, last_index: 16 };
    engine.put_raft_state(7, st).unwrap();
    assert_eq!(engine.get_raft_state(7).unwrap(), Some(st));
    assert_eq!(engine.get_raft_state(8).unwrap(), None);
}

#[test]
fn memory_engine() {
    exercise(&MemRaftEngine::new());
}

#[test]
fn log_engine_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let engine = LogEngine::open(dir.path(), 1 << 20, false).unwrap();
        exercise(&engine);
        engine.sync().unwrap();
    }
    let engine = LogEngine::open(dir.path(), 1 << 20, false).unwrap();
    assert_eq!(engine.first_index(7), Some(10));
    assert_eq!(engine.last_index(7), Some(16));
    assert_eq!(engine.get_raft_state(7).unwrap().map(|s| s.commit), Some(14));
    assert_eq!(engine.fetch_entries(7, 16, 17, usize::MAX).unwrap()[0].term, 2);
}

#[test]
fn torn_tail_is_dropped_on_open() {
    let dir = tempfile::tempdir().unwrap();
    {
        let engine = LogEngine::open(dir.path(), 1 << 20, false).unwrap();
        engine.append(1, &entries(1, 6, 8)).unwrap();
        engine.append(1, &entries(1, 9, 9)).unwrap();
    }
    let file = std::fs::read_dir(dir.path()).unwrap().next().unwrap().unwrap().path();
    let len = std::fs::metadata(&file).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&file).unwrap().set_len(len - 3).unwrap();

    let engine = LogEngine::open(dir.path(), 1 << 20, false).unwrap();
    assert_eq!(engine.last_index(1), Some(8));
    // appending after the repair works and survives another reopen
    engine.append(1, &entries(1, 9, 10)).unwrap();
    drop(engine);
    assert_eq!(LogEngine::open(dir.path(), 1 << 20, false).unwrap().last_index(1), Some(10));
}

#[test]
fn rewrite_drops_dead_records() {
    let dir = tempfile::tempdir().unwrap();
    let engine = LogEngine::open(dir.path(), 4096, false).unwrap();
    for round in 0..20u64 {
        let from = 6 + round * 10;
        engine.append(3, &entries(1, from, from + 9)).unwrap();
        engine.gc(3, from + 5).unwrap();
    }
    assert!(engine.garbage_ratio() > 0.5, "ratio {}", engine.garbage_ratio());
    engine.rewrite().unwrap();
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    drop(engine);
    let engine = LogEngine::open(dir.path(), 4096, false).unwrap();
    assert_eq!((engine.first_index(3), engine.last_index(3)), (Some(201), Some(205)));
}
