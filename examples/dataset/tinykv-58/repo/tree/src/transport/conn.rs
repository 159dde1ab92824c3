//! Connections between stores. Sending never blocks the raft worker: messages go into a
//! bounded queue per target store, and that store's sender thread batches them into
//! frames. When the queue is full the message is dropped; raft retries on its own.

use std::collections::HashMap;
use std::io::{BufReader, BufWriter, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use crossbeam_channel::{bounded, Receiver, Sender, TrySendError};
use log::{debug, info, warn};

use super::codec::{read_frame, write_frame};
use super::message::RaftMessage;
use crate::metrics;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TransportError {
    #[error("store {0} has no known address")]
    Unreachable(u64),
    #[error("send queue to store {0} is full")]
    Full(u64),
    #[error("transport is shut down")]
    Disconnected,
}

/// Sends raft messages to other stores.
pub trait Transport: Send + Sync {
    fn send(&self, msg: RaftMessage) -> Result<(), TransportError>;
}

/// Maps store ids to addresses.
pub trait StoreResolver: Send + Sync + 'static {
    fn resolve(&self, store_id: u64) -> Option<String>;
}

/// A resolver of a fixed address list, from the config file.
#[derive(Debug, Clone, Default)]
pub struct StaticResolver(pub HashMap<u64, String>);

impl StoreResolver for StaticResolver {
    fn resolve(&self, store_id: u64) -> Option<String> {
        self.0.get(&store_id).cloned()
    }
}

/// Transport over TCP.
pub struct TcpTransport<R: StoreResolver> {
    store_id: u64,
    resolver: Arc<R>,
    queue_size: usize,
    max_batch: usize,
    senders: Mutex<HashMap<u64, Sender<RaftMessage>>>,
}

impl<R: StoreResolver> TcpTransport<R> {
    pub fn new(store_id: u64, resolver: R, queue_size: usize, max_batch: usize) -> TcpTransport<R> {
        TcpTransport {
            store_id,
            resolver: Arc::new(resolver),
            queue_size,
            max_batch,
            senders: Mutex::new(HashMap::new()),
        }
    }

    fn sender(&self, to_store: u64) -> Result<Sender<RaftMessage>, TransportError> {
        let mut senders = self.senders.lock().unwrap();
        if let Some(s) = senders.get(&to_store) {
            return Ok(s.clone());
        }
        let addr = self.resolver.resolve(to_store).ok_or(TransportError::Unreachable(to_store))?;
        let (tx, rx) = bounded(self.queue_size);
        let max_batch = self.max_batch;
        thread::Builder::new()
            .name(format!("raft-send-{}", to_store))
            .spawn(move || send_loop(to_store, addr, rx, max_batch))
            .map_err(|_| TransportError::Disconnected)?;
        senders.insert(to_store, tx.clone());
        Ok(tx)
    }
}

impl<R: StoreResolver> Transport for TcpTransport<R> {
    fn send(&self, mut msg: RaftMessage) -> Result<(), TransportError> {
        msg.from_store = self.store_id;
        let to = msg.to_store;
        let tx = self.sender(to)?;
        match tx.try_send(msg) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(_)) => {
                metrics::RAFT_MESSAGES_DROPPED.inc();
                Err(TransportError::Full(to))
            }
            Err(TrySendError::Disconnected(_)) => {
                self.senders.lock().unwrap().remove(&to);
                Err(TransportError::Disconnected)
            }
        }
    }
}

/// Sends the queued messages of one store, reconnecting with backoff. Messages that
/// were queued while the store was unreachable are dropped, not replayed later: stale
/// raft messages only cost the receiver work.
fn send_loop(to_store: u64, addr: String, rx: Receiver<RaftMessage>, max_batch: usize) {
    let mut backoff = Duration::from_millis(50);
    let mut conn: Option<BufWriter<TcpStream>> = None;
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while batch.len() < max_batch {
            match rx.try_recv() {
                Ok(m) => batch.push(m),
                Err(_) => break,
            }
        }
        if conn.is_none() {
            match TcpStream::connect(&addr) {
                Ok(s) => {
                    s.set_nodelay(true).ok();
                    info!("connected to store {} at {}", to_store, addr);
                    conn = Some(BufWriter::new(s));
                    backoff = Duration::from_millis(50);
                }
                Err(e) => {
                    debug!("store {} at {} unreachable: {}, dropping {} messages", to_store, addr, e, batch.len());
                    metrics::RAFT_MESSAGES_DROPPED.add(batch.len() as u64);
                    thread::sleep(backoff);
                    backoff = (backoff * 2).min(Duration::from_secs(2));
                    continue;
                }
            }
        }
        let w = conn.as_mut().unwrap();
        let res = write_frame(w, &batch).and_then(|_| w.flush().map_err(Into::into));
        match res {
            Ok(()) => metrics::RAFT_MESSAGES_SENT.add(batch.len() as u64),
            Err(e) => {
                warn!("send to store {} failed: {}", to_store, e);
                metrics::RAFT_MESSAGES_DROPPED.add(batch.len() as u64);
                conn = None;
            }
        }
    }
    debug!("sender of store {} stopped", to_store);
}

/// Accepts connections from other stores and forwards their messages to `sink`.
pub struct RaftListener {
    listener: TcpListener,
}

impl RaftListener {
    pub fn bind(addr: &str) -> std::io::Result<RaftListener> {
        Ok(RaftListener { listener: TcpListener::bind(addr)? })
    }

    pub fn local_addr(&self) -> std::io::Result<std::net::SocketAddr> {
        self.listener.local_addr()
    }

    /// Runs the accept loop on the calling thread, one reader thread per connection.
    pub fn run(self, sink: Sender<RaftMessage>) {
        for stream in self.listener.incoming() {
            let stream = match stream {
                Ok(s) => s,
                Err(e) => {
                    warn!("accept failed: {}", e);
                    continue;
                }
            };
            let sink = sink.clone();
            thread::spawn(move || {
                let peer = stream.peer_addr().map(|a| a.to_string()).unwrap_or_default();
                let mut r = BufReader::new(stream);
                loop {
                    match read_frame(&mut r) {
                        Ok(Some(msgs)) => {
                            metrics::RAFT_MESSAGES_RECEIVED.add(msgs.len() as u64);
                            for m in msgs {
                                if sink.send(m).is_err() {
                                    return;
                                }
                            }
                        }
                        Ok(None) => return,
                        Err(e) => {
                            warn!("closing connection from {}: {}", peer, e);
                            return;
                        }
                    }
                }
            });
        }
    }
}
