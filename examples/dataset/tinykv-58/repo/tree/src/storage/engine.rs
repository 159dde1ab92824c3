//! An in-memory ordered engine with atomic write batches, standing in for RocksDB.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

#[derive(Debug, Clone, Default)]
pub struct Engine {
    inner: Arc<RwLock<BTreeMap<Vec<u8>, Vec<u8>>>>,
}

#[derive(Debug, Default)]
pub struct WriteBatch {
    ops: Vec<(Vec<u8>, Option<Vec<u8>>)>,
}

impl WriteBatch {
    pub fn put(&mut self, key: &[u8], value: &[u8]) {
        self.ops.push((key.to_vec(), Some(value.to_vec())));
    }

    pub fn delete(&mut self, key: &[u8]) {
        self.ops.push((key.to_vec(), None));
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    pub fn len(&self) -> usize {
        self.ops.len()
    }
}

impl Engine {
    pub fn new() -> Engine {
        Engine::default()
    }

    /// Applies a batch atomically.
    pub fn write(&self, wb: WriteBatch) {
        let mut map = self.inner.write().unwrap();
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
        map.range(start.to_vec()..end.to_vec()).map(|(k, v)| (k.clone(), v.clone())).collect()
    }
}
