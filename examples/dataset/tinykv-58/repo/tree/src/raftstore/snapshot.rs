//! Region snapshots: a file with every data key of a region as of an applied index. The
//! leader generates one for a follower whose next entry was already compacted away; the
//! follower applies it in place of the log up to that index.
//!
//! ```text
//! "TKVSNAP1" | u64 index | u64 term | region | (key, value)* | u64 key count | u32 crc32
//! ```

use std::fs::{self, File};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use log::info;

use super::apply::{data_key, ApplyState};
use super::peer_storage::{encode_region_state, region_state_key, save_apply_state, PeerState};
use super::region::Region;
use crate::codec::{BufMutExt, Reader};
use crate::metrics;
use crate::storage::traits::{prefix_end, EngineError, KvEngine, KvPairs, Mutable, Result, Snapshot};

const MAGIC: &[u8; 8] = b"TKVSNAP1";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotMeta {
    pub region: Region,
    pub index: u64,
    pub term: u64,
    pub key_count: u64,
    pub size: u64,
}

/// Owns the snapshot directory of a store.
pub struct SnapManager {
    dir: PathBuf,
}

impl SnapManager {
    pub fn new(dir: impl AsRef<Path>) -> Result<SnapManager> {
        fs::create_dir_all(dir.as_ref())?;
        Ok(SnapManager { dir: dir.as_ref().to_path_buf() })
    }

    pub fn path(&self, region_id: u64, term: u64, index: u64) -> PathBuf {
        self.dir.join(format!("{}_{}_{}.snap", region_id, term, index))
    }

    /// Writes the snapshot of `region` from an engine snapshot taken at `index`.
    pub fn generate<S: Snapshot>(&self, snap: &S, region: &Region, index: u64, term: u64) -> Result<SnapshotMeta> {
        let path = self.path(region.id, term, index);
        let tmp = path.with_extension("tmp");
        let mut w = BufWriter::new(File::create(&tmp)?);
        let mut hasher = crc32fast::Hasher::new();
        let mut buf = MAGIC.to_vec();
        buf.put_u64_le(index);
        buf.put_u64_le(term);
        region.encode(&mut buf);
        let (start, end) = region_data_range(region.id);
        let mut count = 0u64;
        let mut size = 0u64;
        let mut io_err = None;
        snap.scan(&start, &end, &mut |k, v| {
            buf.put_bytes(&k[start.len()..]);
            buf.put_bytes(v);
            count += 1;
            if buf.len() >= 64 << 10 {
                if let Err(e) = flush(&mut w, &mut hasher, &mut buf, &mut size) {
                    io_err = Some(e);
                    return false;
                }
            }
            true
        });
        if let Some(e) = io_err {
            return Err(e.into());
        }
        // a key length of u32::MAX ends the records; the key count follows
        buf.put_u32_le(u32::MAX);
        buf.put_u64_le(count);
        flush(&mut w, &mut hasher, &mut buf, &mut size)?;
        w.write_all(&hasher.finalize().to_le_bytes())?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        fs::rename(&tmp, &path)?;
        metrics::SNAPSHOTS_GENERATED.inc();
        info!(
            "[region {}] generated snapshot at {} term {}: {} keys, {} bytes",
            region.id,
            index,
            term,
            count,
            size + 4
        );
        Ok(SnapshotMeta { region: region.clone(), index, term, key_count: count, size: size + 4 })
    }

    /// Replaces the region's data with the snapshot and records the new apply state in
    /// the same batch.
    pub fn apply<E: KvEngine>(&self, engine: &E, path: &Path) -> Result<SnapshotMeta> {
        let (meta, pairs) = read_snapshot(path)?;
        let mut wb = E::Batch::default();
        let (start, end) = region_data_range(meta.region.id);
        wb.delete_range(&start, &end);
        for (k, v) in &pairs {
            wb.put(&data_key(meta.region.id, k), v);
        }
        let state = ApplyState { applied_index: meta.index, truncated_index: meta.index, truncated_term: meta.term };
        save_apply_state(&mut wb, meta.region.id, &state);
        wb.put(&region_state_key(meta.region.id), &encode_region_state(&meta.region, PeerState::Normal));
        engine.write_batch(wb)?;
        metrics::SNAPSHOTS_APPLIED.inc();
        info!(
            "[region {}] applied snapshot at {} term {}: {} keys",
            meta.region.id, meta.index, meta.term, meta.key_count
        );
        Ok(meta)
    }

    /// Removes the snapshot files that `keep` rejects; returns how many were removed.
    pub fn gc(&self, keep: impl Fn(u64, u64) -> bool) -> Result<usize> {
        let mut removed = 0;
        for de in fs::read_dir(&self.dir)? {
            let path = de?.path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".snap")) else {
                continue;
            };
            let parts: Vec<u64> = name.split('_').filter_map(|p| p.parse().ok()).collect();
            if let [region_id, _term, index] = parts[..] {
                if !keep(region_id, index) {
                    fs::remove_file(&path)?;
                    removed += 1;
                }
            }
        }
        Ok(removed)
    }
}

fn flush(w: &mut impl Write, hasher: &mut crc32fast::Hasher, buf: &mut Vec<u8>, size: &mut u64) -> std::io::Result<()> {
    hasher.update(buf);
    w.write_all(buf)?;
    *size += buf.len() as u64;
    buf.clear();
    Ok(())
}

/// The engine range of a region's data keys.
pub fn region_data_range(region_id: u64) -> (Vec<u8>, Vec<u8>) {
    let start = data_key(region_id, b"");
    let end = prefix_end(&start);
    (start, end)
}

/// Reads and verifies a snapshot file.
pub fn read_snapshot(path: &Path) -> Result<(SnapshotMeta, KvPairs)> {
    let mut b = Vec::new();
    File::open(path)?.read_to_end(&mut b)?;
    let corrupt = |offset: usize| EngineError::Corruption { what: "snapshot", offset: offset as u64 };
    if b.len() < MAGIC.len() + 4 || &b[..MAGIC.len()] != MAGIC {
        return Err(corrupt(0));
    }
    let (body, crc) = b.split_at(b.len() - 4);
    if crc32fast::hash(body) != u32::from_le_bytes(crc.try_into().unwrap()) {
        return Err(corrupt(body.len()));
    }
    let mut r = Reader::new(&body[MAGIC.len()..]);
    let index = r.u64().ok_or_else(|| corrupt(8))?;
    let term = r.u64().ok_or_else(|| corrupt(16))?;
    let region = Region::decode(&mut r).ok_or_else(|| corrupt(24))?;
    let mut pairs = Vec::new();
    loop {
        let at = body.len() - r.remaining();
        let len = r.u32().ok_or_else(|| corrupt(at))?;
        if len == u32::MAX {
            break;
        }
        let key = r.take(len as usize).ok_or_else(|| corrupt(at))?.to_vec();
        let value = r.bytes().ok_or_else(|| corrupt(at))?.to_vec();
        pairs.push((key, value));
    }
    let count = r.u64().ok_or_else(|| corrupt(body.len()))?;
    if count != pairs.len() as u64 {
        return Err(corrupt(body.len()));
    }
    let meta = SnapshotMeta { region, index, term, key_count: count, size: b.len() as u64 };
    Ok((meta, pairs))
}
