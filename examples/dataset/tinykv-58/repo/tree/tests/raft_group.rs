use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use tinykv::raftstore::apply::ApplyState;
use tinykv::raftstore::msg::EntryType;
use tinykv::raftstore::peer_storage::{INIT_INDEX, INIT_TERM};
use tinykv::raftstore::raft::{ProposeError, RaftGroup, Role};
use tinykv::storage::MemRaftEngine;
use tinykv::transport::MessageType;

fn bootstrapped() -> ApplyState {
    ApplyState { applied_index: INIT_INDEX, truncated_index: INIT_INDEX, truncated_term: INIT_TERM }
}

/// Three peers of region 1 with their own engines; messages are delivered by `pump`.
struct Cluster {
    groups: HashMap<u64, RaftGroup<MemRaftEngine>>,
}

impl Cluster {
    fn new() -> Cluster {
        let groups = (1..=3)
            .map(|id| {
                (id, RaftGroup::new(1, id, vec![1, 2, 3], Arc::new(MemRaftEngine::new()), &bootstrapped()).unwrap())
            })
            .collect();
        Cluster { groups }
    }

    fn elect(&mut self, leader: u64, term: u64) {
        for (id, g) in self.groups.iter_mut() {
            g.become_follower(term, Some(leader));
            if *id == leader {
                g.become_leader();
            }
        }
    }

    /// Persists and delivers messages until none are left.
    fn pump(&mut self) {
        loop {
            let mut msgs = Vec::new();
            for g in self.groups.values_mut() {
                g.persist().unwrap();
                msgs.append(&mut g.msgs);
            }
            if msgs.is_empty() {
                return;
            }
            for m in msgs {
                self.groups.get_mut(&m.to_peer).unwrap().step(m);
            }
        }
    }
}

#[test]
fn proposals_commit_on_every_peer() {
    let mut c = Cluster::new();
    c.elect(2, 7);
    c.pump();
    let index = c.groups.get_mut(&2).unwrap().propose(Bytes::from_static(b"put"), EntryType::Normal).unwrap();
    assert_eq!(index, 7);
    c.pump();

    let leader = c.groups.get_mut(&2).unwrap();
    assert_eq!(leader.committed, 7);
    let ents = leader.take_committed_entries(usize::MAX).unwrap();
    assert_eq!(ents.iter().map(|e| (e.index, e.term)).collect::<Vec<_>>(), vec![(6, 7), (7, 7)]);
    assert!(leader.take_committed_entries(usize::MAX).unwrap().is_empty());

    // followers learn the commit index with the next append
    c.groups.get_mut(&2).unwrap().propose(Bytes::from_static(b"put2"), EntryType::Normal).unwrap();
    c.pump();
    assert!(c.groups[&1].committed >= 7);
}

#[test]
fn followers_refuse_proposals() {
    let mut c = Cluster::new();
    c.elect(1, 3);
    let err = c.groups.get_mut(&3).unwrap().propose(Bytes::from_static(b"x"), EntryType::Normal).unwrap_err();
    assert_eq!(err, ProposeError::NotLeader(Some(1)));
}

#[test]
fn transfer_to_an_up_to_date_peer_sends_timeout_now() {
    let mut c = Cluster::new();
    c.elect(1, 4);
    c.pump();
    let leader = c.groups.get_mut(&1).unwrap();
    leader.transfer_leader(3);
    assert!(matches!(leader.propose(Bytes::from_static(b"x"), EntryType::Normal), Err(ProposeError::Transferring(3))));
    let sent: Vec<_> = leader.msgs.iter().map(|m| (m.to_peer, m.msg_type)).collect();
    assert_eq!(sent, vec![(3, MessageType::TimeoutNow)]);
    assert_eq!(leader.role, Role::Leader);
}
