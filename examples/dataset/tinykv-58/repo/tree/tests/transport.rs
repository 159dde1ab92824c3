use std::collections::HashMap;
use std::io::Cursor;
use std::time::Duration;

use bytes::Bytes;
use crossbeam_channel::unbounded;
use tinykv::raftstore::msg::{Entry, EntryType};
use tinykv::transport::codec::{encode_frame, read_frame, FrameError};
use tinykv::transport::{
    MessageType, RaftListener, RaftMessage, StaticResolver, TcpTransport, Transport, TransportError,
};

fn append(region_id: u64, n: u64) -> RaftMessage {
    let mut m = RaftMessage::new(region_id, 2, 5, MessageType::Append, 7);
    m.to_store = 1;
    m.index = 2207;
    m.log_term = 6;
    m.commit = 2207;
    m.entries = (0..n)
        .map(|i| Entry {
            index: 2208 + i,
            term: 7,
            entry_type: EntryType::Normal,
            data: Bytes::from(vec![b'p'; i as usize]),
        })
        .collect();
    m
}

#[test]
fn frame_round_trip() {
    let msgs = vec![append(1042, 3), RaftMessage::new(1043, 2, 6, MessageType::Heartbeat, 9)];
    let frame = encode_frame(&msgs);
    let got = read_frame(&mut Cursor::new(frame)).unwrap().unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].entries.len(), 3);
    assert_eq!(got[0].entries[2].data.len(), 2);
    assert_eq!((got[1].region_id, got[1].msg_type, got[1].term), (1043, MessageType::Heartbeat, 9));
}

#[test]
fn corrupt_frame_is_an_error() {
    let mut frame = encode_frame(&[append(1, 1)]);
    let last = frame.len() - 1;
    frame[last] ^= 1;
    assert!(matches!(read_frame(&mut Cursor::new(frame)), Err(FrameError::Checksum)));
    assert!(read_frame(&mut Cursor::new(Vec::new())).unwrap().is_none());
}

#[test]
fn messages_cross_a_loopback_connection() {
    let listener = RaftListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (tx, rx) = unbounded();
    std::thread::spawn(move || listener.run(tx));

    let transport = TcpTransport::new(2, StaticResolver(HashMap::from([(1, addr)])), 64, 8);
    for n in 0..5 {
        transport.send(append(1042, n)).unwrap();
    }
    for n in 0..5 {
        let m = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert_eq!(m.entries.len(), n as usize);
        assert_eq!(m.from_store, 2);
    }
    assert_eq!(
        transport.send(RaftMessage::new(1, 2, 9, MessageType::Heartbeat, 1)).unwrap_err(),
        TransportError::Unreachable(0)
    );
}
