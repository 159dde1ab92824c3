//! tinykv-ctl: inspect a store's files and nudge a running store.
//!
//! ```text
//! tinykv-ctl check-config <file>
//! tinykv-ctl raft-state --data-dir <dir> --region <id>
//! tinykv-ctl dump-log --data-dir <dir> --region <id> [--from <index>] [--limit <n>]
//! tinykv-ctl snap-info <file>
//! tinykv-ctl transfer-leader --addr <host:port> --region <id> --from-peer <id> --to-peer <id> --to-store <id> --term <t>
//! tinykv-ctl metrics --status-addr <host:port>
//! ```
//!
//! The offline commands need the store to be stopped: they open its raft log files.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::exit;
use std::time::Duration;

use tinykv::config::Config;
use tinykv::raftstore::snapshot::read_snapshot;
use tinykv::storage::traits::RaftEngine;
use tinykv::storage::LogEngine;
use tinykv::transport::{MessageType, RaftMessage, StaticResolver, TcpTransport, Transport};

/// `--name value` options and positional arguments.
struct Args {
    opts: HashMap<String, String>,
    positional: Vec<String>,
}

impl Args {
    fn parse(raw: impl Iterator<Item = String>) -> Result<Args, String> {
        let mut opts = HashMap::new();
        let mut positional = Vec::new();
        let mut raw = raw.peekable();
        while let Some(a) = raw.next() {
            if let Some(name) = a.strip_prefix("--") {
                let value = raw.next().ok_or_else(|| format!("--{} needs a value", name))?;
                opts.insert(name.to_string(), value);
            } else {
                positional.push(a);
            }
        }
        Ok(Args { opts, positional })
    }

    fn str(&self, name: &str) -> Result<&str, String> {
        self.opts.get(name).map(String::as_str).ok_or_else(|| format!("--{} is required", name))
    }

    fn u64(&self, name: &str) -> Result<u64, String> {
        self.str(name)?.parse().map_err(|_| format!("--{} must be a number", name))
    }

    fn u64_or(&self, name: &str, default: u64) -> Result<u64, String> {
        if self.opts.contains_key(name) {
            self.u64(name)
        } else {
            Ok(default)
        }
    }
}

fn main() {
    let mut raw = std::env::args().skip(1);
    let Some(cmd) = raw.next() else {
        eprintln!("usage: tinykv-ctl <check-config|raft-state|dump-log|snap-info|transfer-leader|metrics> ...");
        exit(2);
    };
    let result = Args::parse(raw).and_then(|args| match cmd.as_str() {
        "check-config" => check_config(&args),
        "raft-state" => raft_state(&args),
        "dump-log" => dump_log(&args),
        "snap-info" => snap_info(&args),
        "transfer-leader" => transfer_leader(&args),
        "metrics" => metrics(&args),
        other => Err(format!("unknown command {:?}", other)),
    });
    if let Err(e) = result {
        eprintln!("tinykv-ctl: {}", e);
        exit(1);
    }
}

fn check_config(args: &Args) -> Result<(), String> {
    let path = args.positional.first().ok_or("check-config <file>")?;
    let cfg = Config::from_file(Path::new(path)).map_err(|e| e.to_string())?;
    println!(
        "{}: ok (store {}, raft engine {:?}, data dir {})",
        path,
        cfg.server.store_id,
        cfg.storage.raft_engine,
        cfg.storage.data_dir.display()
    );
    Ok(())
}

fn open_raft_engine(args: &Args) -> Result<LogEngine, String> {
    let dir = PathBuf::from(args.str("data-dir")?).join("raft");
    if !dir.is_dir() {
        return Err(format!("{} is not a raft log directory", dir.display()));
    }
    // a huge target size: never rotate while inspecting
    LogEngine::open(&dir, u64::MAX, false).map_err(|e| e.to_string())
}

fn raft_state(args: &Args) -> Result<(), String> {
    let engine = open_raft_engine(args)?;
    let region = args.u64("region")?;
    let state = engine.get_raft_state(region).map_err(|e| e.to_string())?;
    match state {
        Some(s) => println!(
            "region {}: term {} vote {} commit {} last index {}",
            region, s.term, s.vote, s.commit, s.last_index
        ),
        None => println!("region {}: no raft state", region),
    }
    match (engine.first_index(region), engine.last_index(region)) {
        (Some(first), Some(last)) => println!("entries [{}, {}]", first, last),
        _ => println!("no entries"),
    }
    Ok(())
}

fn dump_log(args: &Args) -> Result<(), String> {
    let engine = open_raft_engine(args)?;
    let region = args.u64("region")?;
    let (Some(first), Some(last)) = (engine.first_index(region), engine.last_index(region)) else {
        println!("region {} has no entries (regions with entries: {:?})", region, engine.regions());
        return Ok(());
    };
    let from = args.u64_or("from", first)?.max(first);
    let limit = args.u64_or("limit", 100)?;
    let to = last.min(from.saturating_add(limit).saturating_sub(1));
    let entries = engine.fetch_entries(region, from, to + 1, usize::MAX).map_err(|e| e.to_string())?;
    for e in entries {
        println!(
            "{:>10} term {:>4} {:?} {} bytes{}",
            e.index,
            e.term,
            e.entry_type,
            e.data.len(),
            if e.data.is_empty() { " (empty)" } else { "" }
        );
    }
    Ok(())
}

fn snap_info(args: &Args) -> Result<(), String> {
    let path = args.positional.first().ok_or("snap-info <file>")?;
    let (meta, _) = read_snapshot(Path::new(path)).map_err(|e| e.to_string())?;
    println!(
        "region {} [{:?}, {:?}) epoch {:?}: index {} term {}, {} keys, {} bytes",
        meta.region.id,
        String::from_utf8_lossy(&meta.region.start_key),
        String::from_utf8_lossy(&meta.region.end_key),
        meta.region.epoch,
        meta.index,
        meta.term,
        meta.key_count,
        meta.size
    );
    Ok(())
}

/// Sends TimeoutNow to the target peer as if from the current leader: the target
/// campaigns at once and wins if its log is up to date. The leader's own transfer path
/// is safer; this is for a leader that does not answer the admin API.
fn transfer_leader(args: &Args) -> Result<(), String> {
    let to_store = args.u64("to-store")?;
    let mut stores = HashMap::new();
    stores.insert(to_store, args.str("addr")?.to_string());
    let transport = TcpTransport::new(0, StaticResolver(stores), 16, 1);
    let mut m = RaftMessage::new(
        args.u64("region")?,
        args.u64("from-peer")?,
        args.u64("to-peer")?,
        MessageType::TimeoutNow,
        args.u64("term")?,
    );
    m.to_store = to_store;
    transport.send(m).map_err(|e| e.to_string())?;
    // the sender thread writes asynchronously; give it a moment before exiting
    std::thread::sleep(Duration::from_millis(200));
    println!("sent TimeoutNow to peer {} on store {}", args.u64("to-peer")?, to_store);
    Ok(())
}

fn metrics(args: &Args) -> Result<(), String> {
    let addr = args.str("status-addr")?;
    let mut s = TcpStream::connect(addr).map_err(|e| format!("{}: {}", addr, e))?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok();
    write!(s, "GET /metrics HTTP/1.0\r\nHost: {}\r\n\r\n", addr).map_err(|e| e.to_string())?;
    let mut body = String::new();
    s.read_to_string(&mut body).map_err(|e| e.to_string())?;
    let body = body.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or(&body);
    print!("{}", body);
    Ok(())
}
