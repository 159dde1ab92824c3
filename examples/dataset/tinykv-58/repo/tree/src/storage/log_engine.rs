//! A file-backed raft log engine: every write is a record appended to the active log
//! file, and the whole log is replayed into memory on open. When the files hold mostly
//! dead records, `rewrite` writes the live entries and states into a new file and
//! removes the old ones.

use std::collections::{BTreeMap, HashMap};
use std::fs::{self, File, OpenOptions};
use std::io::{BufReader, BufWriter, ErrorKind, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use log::{info, warn};

use super::raft_engine::{append_entries, fetch_range};
use super::traits::{EngineError, RaftEngine, RaftState, Result};
use crate::codec::{self, BufMutExt, Reader};
use crate::raftstore::msg::Entry;

const KIND_ENTRIES: u8 = 1;
const KIND_STATE: u8 = 2;
const KIND_GC: u8 = 3;
const FILE_SUFFIX: &str = ".raftlog";
const MAX_RECORD: usize = 128 << 20;

#[derive(Default)]
struct RegionLog {
    entries: BTreeMap<u64, Entry>,
    state: Option<RaftState>,
}

struct Inner {
    regions: HashMap<u64, RegionLog>,
    active: BufWriter<File>,
    active_seq: u64,
    active_size: u64,
    /// Bytes of all files, and an estimate of the bytes still referenced.
    total_size: u64,
    live_size: u64,
}

/// The raft log engine of a store's `raft` directory.
pub struct LogEngine {
    dir: PathBuf,
    target_file_size: u64,
    sync_on_write: bool,
    inner: Mutex<Inner>,
}

fn file_name(seq: u64) -> String {
    format!("{:016}{}", seq, FILE_SUFFIX)
}

fn list_files(dir: &Path) -> Result<Vec<(u64, PathBuf)>> {
    let mut files = Vec::new();
    for de in fs::read_dir(dir)? {
        let path = de?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if let Some(seq) = name.strip_suffix(FILE_SUFFIX).and_then(|s| s.parse::<u64>().ok()) {
            files.push((seq, path));
        }
    }
    files.sort();
    Ok(files)
}

impl LogEngine {
    /// Opens `dir`, replaying its files. A torn record at the end of the last file is
    /// dropped; a bad record anywhere else is corruption.
    pub fn open(dir: impl AsRef<Path>, target_file_size: u64, sync_on_write: bool) -> Result<LogEngine> {
        let dir = dir.as_ref().to_path_buf();
        fs::create_dir_all(&dir)?;
        let files = list_files(&dir)?;
        let mut regions: HashMap<u64, RegionLog> = HashMap::new();
        let mut total_size = 0;
        for (i, (_, path)) in files.iter().enumerate() {
            let last = i + 1 == files.len();
            total_size += replay_file(path, last, &mut regions)?;
        }
        let active_seq = files.last().map(|(s, _)| *s).unwrap_or(0).max(1);
        let path = dir.join(file_name(active_seq));
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        let active_size = file.metadata()?.len();
        info!("raft log engine opened {} files, {} regions, {} bytes", files.len(), regions.len(), total_size);
        Ok(LogEngine {
            dir,
            target_file_size,
            sync_on_write,
            inner: Mutex::new(Inner {
                regions,
                active: BufWriter::new(file),
                active_seq,
                active_size,
                total_size,
                live_size: total_size,
            }),
        })
    }

    fn write_record(&self, inner: &mut Inner, payload: &[u8]) -> Result<()> {
        let mut header = [0u8; 8];
        header[..4].copy_from_slice(&(payload.len() as u32).to_le_bytes());
        header[4..].copy_from_slice(&crc32fast::hash(payload).to_le_bytes());
        inner.active.write_all(&header)?;
        inner.active.write_all(payload)?;
        inner.active.flush()?;
        if self.sync_on_write {
            inner.active.get_ref().sync_data()?;
        }
        let n = (header.len() + payload.len()) as u64;
        inner.active_size += n;
        inner.total_size += n;
        inner.live_size += n;
        if inner.active_size >= self.target_file_size {
            self.rotate(inner)?;
        }
        Ok(())
    }

    fn rotate(&self, inner: &mut Inner) -> Result<()> {
        inner.active.get_ref().sync_all()?;
        inner.active_seq += 1;
        let file = OpenOptions::new().create(true).append(true).open(self.dir.join(file_name(inner.active_seq)))?;
        inner.active = BufWriter::new(file);
        inner.active_size = 0;
        Ok(())
    }

    /// Ratio of dead bytes in the files; the store rewrites above a threshold.
    pub fn garbage_ratio(&self) -> f64 {
        let inner = self.inner.lock().unwrap();
        if inner.total_size == 0 {
            return 0.0;
        }
        1.0 - inner.live_size as f64 / inner.total_size as f64
    }

    /// Writes the live entries and states into a new file and deletes the older files.
    pub fn rewrite(&self) -> Result<()> {
        let mut inner = self.inner.lock().unwrap();
        let old: Vec<(u64, PathBuf)> = list_files(&self.dir)?;
        self.rotate(&mut inner)?;
        inner.total_size = 0;
        inner.live_size = 0;
        let mut payloads = Vec::new();
        for (region_id, r) in &inner.regions {
            let entries: Vec<Entry> = r.entries.values().cloned().collect();
            if !entries.is_empty() {
                payloads.push(encode_entries(*region_id, &entries));
            }
            if let Some(st) = r.state {
                payloads.push(encode_state(*region_id, st));
            }
        }
        for p in &payloads {
            self.write_record(&mut inner, p)?;
        }
        inner.active.get_ref().sync_all()?;
        for (seq, path) in old {
            if seq < inner.active_seq {
                fs::remove_file(path)?;
            }
        }
        info!("raft log engine rewrote {} records, {} bytes", payloads.len(), inner.total_size);
        Ok(())
    }

    /// Region ids with entries or state, for `tinykv-ctl dump-log`.
    pub fn regions(&self) -> Vec<u64> {
        let mut ids: Vec<u64> = self.inner.lock().unwrap().regions.keys().copied().collect();
        ids.sort();
        ids
    }
}

impl RaftEngine for LogEngine {
    fn append(&self, region_id: u64, entries: &[Entry]) -> Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let mut inner = self.inner.lock().unwrap();
        self.write_record(&mut inner, &encode_entries(region_id, entries))?;
        append_entries(&mut inner.regions.entry(region_id).or_default().entries, entries);
        Ok(())
    }

    fn fetch_entries(&self, region_id: u64, lo: u64, hi: u64, max_size: usize) -> Result<Vec<Entry>> {
        let inner = self.inner.lock().unwrap();
        match inner.regions.get(&region_id) {
            Some(r) => fetch_range(region_id, &r.entries, lo, hi, max_size),
            None => Err(EngineError::Unavailable { region_id, lo, hi, first: 0, last: 0 }),
        }
    }

    fn first_index(&self, region_id: u64) -> Option<u64> {
        self.inner.lock().unwrap().regions.get(&region_id)?.entries.keys().next().copied()
    }

    fn last_index(&self, region_id: u64) -> Option<u64> {
        self.inner.lock().unwrap().regions.get(&region_id)?.entries.keys().next_back().copied()
    }

    fn put_raft_state(&self, region_id: u64, state: RaftState) -> Result<()> {
        let mut inner = self.inner.lock().unwrap();
        self.write_record(&mut inner, &encode_state(region_id, state))?;
        inner.regions.entry(region_id).or_default().state = Some(state);
        Ok(())
    }

    fn get_raft_state(&self, region_id: u64) -> Result<Option<RaftState>> {
        Ok(self.inner.lock().unwrap().regions.get(&region_id).and_then(|r| r.state))
    }

    fn gc(&self, region_id: u64, to: u64) -> Result<usize> {
        let mut inner = self.inner.lock().unwrap();
        let mut payload = vec![KIND_GC];
        payload.put_u64_le(region_id);
        payload.put_u64_le(to);
        self.write_record(&mut inner, &payload)?;
        let Some(r) = inner.regions.get_mut(&region_id) else { return Ok(0) };
        let keep = r.entries.split_off(&to);
        let dropped: Vec<Entry> = std::mem::replace(&mut r.entries, keep).into_values().collect();
        let freed: u64 = dropped.iter().map(|e| codec::entry_size(e) as u64).sum();
        inner.live_size = inner.live_size.saturating_sub(freed);
        Ok(dropped.len())
    }

    fn sync(&self) -> Result<()> {
        let mut inner = self.inner.lock().unwrap();
        inner.active.flush()?;
        inner.active.get_ref().sync_data()?;
        Ok(())
    }
}

fn encode_entries(region_id: u64, entries: &[Entry]) -> Vec<u8> {
    let mut p = vec![KIND_ENTRIES];
    p.put_u64_le(region_id);
    p.put_u32_le(entries.len() as u32);
    for e in entries {
        codec::put_entry(&mut p, e);
    }
    p
}

fn encode_state(region_id: u64, st: RaftState) -> Vec<u8> {
    let mut p = vec![KIND_STATE];
    p.put_u64_le(region_id);
    for v in [st.term, st.vote, st.commit, st.last_index] {
        p.put_u64_le(v);
    }
    p
}

fn apply_record(payload: &[u8], regions: &mut HashMap<u64, RegionLog>) -> Option<()> {
    let mut r = Reader::new(payload);
    let kind = r.u8()?;
    let region_id = r.u64()?;
    let region = regions.entry(region_id).or_default();
    match kind {
        KIND_ENTRIES => {
            let n = r.u32()? as usize;
            let mut entries = Vec::with_capacity(n);
            for _ in 0..n {
                entries.push(codec::read_entry(&mut r)?);
            }
            append_entries(&mut region.entries, &entries);
        }
        KIND_STATE => {
            region.state = Some(RaftState { term: r.u64()?, vote: r.u64()?, commit: r.u64()?, last_index: r.u64()? });
        }
        KIND_GC => {
            let to = r.u64()?;
            region.entries = region.entries.split_off(&to);
        }
        _ => return None,
    }
    Some(())
}

/// Replays one file into `regions` and returns the bytes it kept.
fn replay_file(path: &Path, last: bool, regions: &mut HashMap<u64, RegionLog>) -> Result<u64> {
    let mut r = BufReader::new(File::open(path)?);
    let mut offset = 0u64;
    loop {
        let mut header = [0u8; 8];
        match r.read_exact(&mut header) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(e.into()),
        }
        let len = u32::from_le_bytes(header[..4].try_into().unwrap()) as usize;
        let crc = u32::from_le_bytes(header[4..].try_into().unwrap());
        let mut payload = vec![0u8; len.min(MAX_RECORD)];
        let complete = len <= MAX_RECORD && r.read_exact(&mut payload).is_ok();
        if !complete || crc32fast::hash(&payload) != crc || apply_record(&payload, regions).is_none() {
            if last {
                warn!("dropping torn record at {}:{}", path.display(), offset);
                OpenOptions::new().write(true).open(path)?.set_len(offset)?;
                break;
            }
            return Err(EngineError::Corruption { what: "raft log record", offset });
        }
        offset += 8 + len as u64;
    }
    Ok(offset)
}
