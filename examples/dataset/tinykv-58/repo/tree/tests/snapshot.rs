use tinykv::raftstore::apply::data_key;
use tinykv::raftstore::peer_storage::load_apply_state;
use tinykv::raftstore::region::{PeerMeta, Region, RegionEpoch};
use tinykv::raftstore::snapshot::{read_snapshot, SnapManager};
use tinykv::storage::traits::KvEngine;
use tinykv::storage::{Engine, WriteBatch};

fn region(id: u64) -> Region {
    Region {
        id,
        start_key: b"ref/".to_vec(),
        end_key: b"ref0".to_vec(),
        epoch: RegionEpoch { conf_ver: 2, version: 5 },
        peers: vec![PeerMeta { id: 3, store_id: 1 }, PeerMeta { id: 4, store_id: 2 }],
    }
}

fn fill(engine: &Engine, region_id: u64, keys: &[&str]) {
    let mut wb = WriteBatch::default();
    for k in keys {
        wb.put(&data_key(region_id, k.as_bytes()), format!("v-{}", k).as_bytes());
    }
    engine.write(wb);
}

#[test]
fn generate_and_apply() {
    let dir = tempfile::tempdir().unwrap();
    let mgr = SnapManager::new(dir.path()).unwrap();
    let leader = Engine::new();
    fill(&leader, 1042, &["ref/country/NL", "ref/currency/EUR", "ref/currency/USD"]);
    fill(&leader, 1043, &["orders/77120"]);

    let meta = mgr.generate(&leader.snapshot(), &region(1042), 2300, 7).unwrap();
    assert_eq!(meta.key_count, 3);

    // the follower has a stale key of the region and a key of another region
    let follower = Engine::new();
    fill(&follower, 1042, &["ref/currency/XEU"]);
    fill(&follower, 1043, &["orders/1"]);
    mgr.apply(&follower, &mgr.path(1042, 7, 2300)).unwrap();

    assert_eq!(follower.get(&data_key(1042, b"ref/currency/EUR")), Some(b"v-ref/currency/EUR".to_vec()));
    assert_eq!(follower.get(&data_key(1042, b"ref/currency/XEU")), None);
    assert_eq!(follower.get(&data_key(1043, b"orders/1")), Some(b"v-orders/1".to_vec()));
    let state = load_apply_state(&follower, 1042);
    assert_eq!((state.applied_index, state.truncated_index, state.truncated_term), (2300, 2300, 7));
}

#[test]
fn corrupt_snapshot_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let mgr = SnapManager::new(dir.path()).unwrap();
    let engine = Engine::new();
    fill(&engine, 9, &["ref/a"]);
    mgr.generate(&engine.snapshot(), &region(9), 100, 3).unwrap();
    let path = mgr.path(9, 3, 100);
    let mut bytes = std::fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    std::fs::write(&path, bytes).unwrap();
    assert!(read_snapshot(&path).is_err());
    assert!(mgr.apply(&Engine::new(), &path).is_err());
}

#[test]
fn gc_keeps_what_the_caller_wants() {
    let dir = tempfile::tempdir().unwrap();
    let mgr = SnapManager::new(dir.path()).unwrap();
    let engine = Engine::new();
    for index in [100, 200, 300] {
        mgr.generate(&engine.snapshot(), &region(5), index, 2).unwrap();
    }
    assert_eq!(mgr.gc(|_, index| index >= 300).unwrap(), 2);
    assert!(mgr.path(5, 2, 300).exists());
}
