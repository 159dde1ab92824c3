use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use super::*;

fn peer(id: u64, store_id: u64) -> PeerMeta {
    PeerMeta { id, store_id }
}

fn region(id: u64, start: &[u8], end: &[u8], version: u64) -> Region {
    Region {
        id,
        start_key: start.to_vec(),
        end_key: end.to_vec(),
        epoch: RegionEpoch { conf_ver: 1, version },
        peers: vec![peer(id * 10 + 1, 1), peer(id * 10 + 2, 2), peer(id * 10 + 3, 3)],
    }
}

struct Provider(Vec<(Region, Option<PeerMeta>)>);

impl RegionProvider for Provider {
    fn locate(&self, key: &[u8]) -> Result<(Region, Option<PeerMeta>), String> {
        self.0.iter().find(|(r, _)| r.contains(key)).cloned().ok_or_else(|| "no region".into())
    }
}

/// Answers with the scripted results in order, then with `Done`; records the stores.
#[derive(Default)]
struct Script {
    answers: Mutex<VecDeque<Result<KvResponse, RpcError>>>,
    stores: Mutex<Vec<u64>>,
}

impl KvRpc for &Script {
    fn call(&self, store_id: u64, _ctx: &RequestContext, req: &KvRequest) -> Result<KvResponse, RpcError> {
        self.stores.lock().unwrap().push(store_id);
        if let KvRequest::Scan { start, .. } = req {
            return Ok(KvResponse::Pairs(vec![(start.clone(), b"v".to_vec())]));
        }
        self.answers.lock().unwrap().pop_front().unwrap_or(Ok(KvResponse::Done))
    }
}

fn fast() -> Backoff {
    Backoff { base: Duration::from_millis(1), max: Duration::from_millis(2), budget: Duration::from_secs(5) }
}

#[test]
fn follows_the_leader_hint() {
    let r = region(1, b"", b"", 1);
    let script = Script::default();
    script
        .answers
        .lock()
        .unwrap()
        .push_back(Err(RpcError::Region(RegionError::NotLeader { region_id: 1, leader: Some(peer(13, 3)) })));
    let client = Client::new(Provider(vec![(r, Some(peer(11, 1)))]), &script, fast());

    client.put(b"k", b"v").unwrap();
    client.put(b"k2", b"v").unwrap();
    assert_eq!(*script.stores.lock().unwrap(), vec![1, 3, 3]);
}

#[test]
fn epoch_mismatch_refreshes_the_cache() {
    let old = region(1, b"", b"", 1);
    let left = region(1, b"", b"m", 2);
    let right = region(2, b"m", b"", 2);
    let script = Script::default();
    script
        .answers
        .lock()
        .unwrap()
        .push_back(Err(RpcError::Region(RegionError::EpochNotMatch { current: vec![left, right.clone()] })));
    let client = Client::new(Provider(vec![(old, Some(peer(11, 1)))]), &script, fast());

    client.delete(b"x").unwrap();
    assert_eq!(client.cache.lookup(b"x").unwrap().0, right);
    assert_eq!(client.cache.len(), 2);
}

#[test]
fn unreachable_store_moves_to_another_peer() {
    let r = region(1, b"", b"", 1);
    let script = Script::default();
    script.answers.lock().unwrap().push_back(Err(RpcError::Unreachable("connection refused".into())));
    let client = Client::new(Provider(vec![(r, Some(peer(11, 1)))]), &script, fast());

    client.put(b"k", b"v").unwrap();
    assert_eq!(*script.stores.lock().unwrap(), vec![1, 2]);
}

#[test]
fn read_timeouts_give_up_after_the_budget() {
    let r = region(1, b"", b"", 1);
    let script = Script::default();
    for _ in 0..100 {
        script.answers.lock().unwrap().push_back(Err(RpcError::Region(RegionError::Timeout)));
    }
    let backoff = Backoff { budget: Duration::ZERO, ..fast() };
    let client = Client::new(Provider(vec![(r, Some(peer(11, 1)))]), &script, backoff);
    match client.get(b"ref/currency/EUR") {
        Err(ClientError::Exhausted { attempts: 1, .. }) => {}
        other => panic!("got {:?}", other),
    }
}

#[test]
fn scan_crosses_regions() {
    let script = Script::default();
    let provider = Provider(vec![(region(1, b"", b"m", 1), None), (region(2, b"m", b"", 1), None)]);
    let client = Client::new(provider, &script, fast());
    let pairs = client.scan(b"a", b"", 10).unwrap();
    let starts: Vec<&[u8]> = pairs.iter().map(|(k, _)| k.as_slice()).collect();
    assert_eq!(starts, vec![b"a".as_slice(), b"m".as_slice()]);
}
