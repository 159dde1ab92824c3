//! An in-memory ordered engine with atomic write batches, standing in for RocksDB.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use super::traits::{self, KvEngine, Mutable};

#[derive(Debug, Clone, Default)]
pub struct Engine {
    inner: Arc<RwLock<BTreeMap<Vec<u8>, Vec<u8>>>>,
}

#[derive(Debug, Default)]
pub struct WriteBatch {
    ops: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    /// Range deletions run before the other operations of the batch.
    range_deletes: Vec<(Vec<u8>, Vec<u8>)>,
}

impl WriteBatch {
    pub fn put(&mut self, key: &[u8], value: &[u8]) {
        self.ops.push((key.to_vec(), Some(value.to_vec())));
    }

    pub fn delete(&mut self, key: &[u8]) {
        self.ops.push((key.to_vec(), None));
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty() && self.range_deletes.is_empty()
    }

    pub fn len(&self) -> usize {
        self.ops.len() + self.range_deletes.len()
    }
}

impl Engine {
    pub fn new() -> Engine {
        Engine::default()
    }

    /// Applies a batch atomically.
    pub fn write(&self, wb: WriteBatch) {
        let mut map = self.inner.write().unwrap();
        for (start, end) in wb.range_deletes {
            let doomed: Vec<Vec<u8>> =
                map.range::<[u8], _>(traits::range_bounds(&start, &end)).map(|(k, _)| k.clone()).collect();
            for k in doomed {
                map.remove(&k);
            }
        }
        for (k, v) in wb.ops {
            match v {
                Some(v) => {
                    map.insert(k, v);
                }
                None => {
                    map.remove(&k);
                }
            }
        }
    }

    pub fn get(&self, key: &[u8]) -> Option<Vec<u8>> {
        self.inner.read().unwrap().get(key).cloned()
    }

    pub fn scan(&self, start: &[u8], end: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
        let map = self.inner.read().unwrap();
        map.range::<[u8], _>(traits::range_bounds(start, end)).map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    /// Number of keys, for metrics.
    pub fn len(&self) -> usize {
        self.inner.read().unwrap().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A point-in-time copy of the engine. Copying is fine for the sizes the in-memory engine
/// is used with (tests and single-node trials); RocksDB would pin a sequence number.
#[derive(Debug, Clone)]
pub struct EngineSnapshot {
    map: Arc<BTreeMap<Vec<u8>, Vec<u8>>>,
}

impl traits::Snapshot for EngineSnapshot {
    fn get(&self, key: &[u8]) -> Option<Vec<u8>> {
        self.map.get(key).cloned()
    }

    fn scan(&self, start: &[u8], end: &[u8], f: &mut dyn FnMut(&[u8], &[u8]) -> bool) {
        for (k, v) in self.map.range::<[u8], _>(traits::range_bounds(start, end)) {
            if !f(k, v) {
                break;
            }
        }
    }
}

impl Mutable for WriteBatch {
    fn put(&mut self, key: &[u8], value: &[u8]) {
        WriteBatch::put(self, key, value)
    }

    fn delete(&mut self, key: &[u8]) {
        WriteBatch::delete(self, key)
    }

    fn delete_range(&mut self, start: &[u8], end: &[u8]) {
        self.range_deletes.push((start.to_vec(), end.to_vec()));
    }

    fn count(&self) -> usize {
        self.len()
    }
}

impl KvEngine for Engine {
    type Snap = EngineSnapshot;
    type Batch = WriteBatch;

    fn get(&self, key: &[u8]) -> Option<Vec<u8>> {
        Engine::get(self, key)
    }

    fn write_batch(&self, wb: WriteBatch) -> traits::Result<()> {
        self.write(wb);
        Ok(())
    }

    fn snapshot(&self) -> EngineSnapshot {
        EngineSnapshot { map: Arc::new(self.inner.read().unwrap().clone()) }
    }
}
