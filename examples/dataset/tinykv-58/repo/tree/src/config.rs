//! The store's configuration file (TOML). Durations read as "10s", "200ms" or "1m";
//! sizes as "64MB", "512KB" or a number of bytes.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use serde::de::{self, Deserializer};
use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadableDuration(pub Duration);

impl FromStr for ReadableDuration {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let split = s.find(|c: char| !c.is_ascii_digit()).ok_or_else(|| format!("duration {:?} has no unit", s))?;
        let (num, unit) = s.split_at(split);
        let n: u64 = num.parse().map_err(|_| format!("bad duration {:?}", s))?;
        let d = match unit {
            "ms" => Duration::from_millis(n),
            "s" => Duration::from_secs(n),
            "m" => Duration::from_secs(n * 60),
            "h" => Duration::from_secs(n * 3600),
            _ => return Err(format!("unknown duration unit {:?} in {:?}", unit, s)),
        };
        Ok(ReadableDuration(d))
    }
}

impl<'de> Deserialize<'de> for ReadableDuration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?.parse().map_err(de::Error::custom)
    }
}

impl fmt::Display for ReadableDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadableSize(pub u64);

impl FromStr for ReadableSize {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let (num, mult) = match s {
            _ if s.ends_with("GB") => (&s[..s.len() - 2], 1 << 30),
            _ if s.ends_with("MB") => (&s[..s.len() - 2], 1 << 20),
            _ if s.ends_with("KB") => (&s[..s.len() - 2], 1 << 10),
            _ if s.ends_with('B') => (&s[..s.len() - 1], 1),
            _ => (s, 1),
        };
        let n: u64 = num.trim().parse().map_err(|_| format!("bad size {:?}", s))?;
        Ok(ReadableSize(n * mult))
    }
}

impl<'de> Deserialize<'de> for ReadableSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Num(u64),
            Str(String),
        }
        match Raw::deserialize(d)? {
            Raw::Num(n) => Ok(ReadableSize(n)),
            Raw::Str(s) => s.parse().map_err(de::Error::custom),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct ServerConfig {
    pub store_id: u64,
    pub addr: String,
    pub status_addr: String,
    /// Other stores' raft addresses, by store id.
    pub stores: std::collections::HashMap<String, String>,
    pub send_queue_size: usize,
    pub max_batch_messages: usize,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            store_id: 1,
            addr: "127.0.0.1:20160".into(),
            status_addr: "127.0.0.1:20180".into(),
            stores: Default::default(),
            send_queue_size: 4096,
            max_batch_messages: 128,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct RaftstoreConfig {
    pub raft_base_tick_interval: ReadableDuration,
    pub raft_election_timeout_ticks: u64,
    pub raft_heartbeat_ticks: u64,
    /// Compact a region's log when it holds more entries than this after the applied index.
    pub raft_log_gc_count_limit: u64,
    pub raft_log_gc_tick_interval: ReadableDuration,
    /// The apply loop flushes its write batch after this many operations.
    pub apply_max_batch_ops: usize,
    pub read_timeout: ReadableDuration,
    pub snap_dir: PathBuf,
}

impl Default for RaftstoreConfig {
    fn default() -> Self {
        RaftstoreConfig {
            raft_base_tick_interval: ReadableDuration(Duration::from_secs(1)),
            raft_election_timeout_ticks: 10,
            raft_heartbeat_ticks: 2,
            raft_log_gc_count_limit: 73728,
            raft_log_gc_tick_interval: ReadableDuration(Duration::from_secs(10)),
            apply_max_batch_ops: 256,
            read_timeout: ReadableDuration(Duration::from_secs(10)),
            snap_dir: PathBuf::from("snap"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    Memory,
    Log,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct StorageConfig {
    pub data_dir: PathBuf,
    pub raft_engine: EngineKind,
    pub raft_log_file_size: ReadableSize,
    pub sync_log: bool,
}

impl Default for StorageConfig {
    fn default() -> Self {
        StorageConfig {
            data_dir: PathBuf::from("./tinykv-data"),
            raft_engine: EngineKind::Log,
            raft_log_file_size: ReadableSize(128 << 20),
            sync_log: true,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub server: ServerConfig,
    pub raftstore: RaftstoreConfig,
    pub storage: StorageConfig,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("cannot parse config: {0}")]
    Parse(#[from] toml::de::Error),
    #[error("invalid config: {0}")]
    Invalid(String),
}

impl Config {
    pub fn from_file(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Io(path.to_path_buf(), e))?;
        Config::from_str(&text)
    }

    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str) -> Result<Config, ConfigError> {
        let cfg: Config = toml::from_str(text)?;
        cfg.validate()?;
        Ok(cfg)
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        let invalid = |msg: String| Err(ConfigError::Invalid(msg));
        let rs = &self.raftstore;
        if self.server.store_id == 0 {
            return invalid("server.store-id must be positive".into());
        }
        if rs.raft_heartbeat_ticks == 0 || rs.raft_election_timeout_ticks <= rs.raft_heartbeat_ticks {
            return invalid(format!(
                "raftstore.raft-election-timeout-ticks ({}) must exceed raft-heartbeat-ticks ({}), which must be positive",
                rs.raft_election_timeout_ticks, rs.raft_heartbeat_ticks
            ));
        }
        if rs.apply_max_batch_ops == 0 {
            return invalid("raftstore.apply-max-batch-ops must be positive".into());
        }
        // a read must be able to outlive one election, or every leader change fails reads
        let election = rs.raft_base_tick_interval.0 * rs.raft_election_timeout_ticks as u32;
        if rs.read_timeout.0 < election {
            return invalid(format!(
                "raftstore.read-timeout {} is shorter than the election timeout {:?}",
                rs.read_timeout, election
            ));
        }
        for (id, addr) in &self.server.stores {
            if id.parse::<u64>().is_err() {
                return invalid(format!("server.stores key {:?} is not a store id", id));
            }
            if addr == &self.server.addr {
                return invalid(format!("store {} has this store's address {}", id, addr));
            }
        }
        if self.storage.raft_log_file_size.0 < 1 << 20 {
            return invalid("storage.raft-log-file-size must be at least 1MB".into());
        }
        Ok(())
    }

    /// The snapshot directory, relative to the data directory unless absolute.
    pub fn snap_dir(&self) -> PathBuf {
        self.storage.data_dir.join(&self.raftstore.snap_dir)
    }

    pub fn raft_dir(&self) -> PathBuf {
        self.storage.data_dir.join("raft")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        Config::default().validate().unwrap();
    }

    #[test]
    fn parses_a_store_config() {
        let cfg = Config::from_str(
            r#"
            [server]
            store-id = 2
            addr = "10.2.0.12:20160"
            stores = { "1" = "10.2.0.11:20160", "3" = "10.2.0.13:20160" }

            [raftstore]
            raft-base-tick-interval = "500ms"
            read-timeout = "10s"

            [storage]
            raft-engine = "memory"
            raft-log-file-size = "64MB"
            "#,
        )
        .unwrap();
        assert_eq!(cfg.server.store_id, 2);
        assert_eq!(cfg.raftstore.raft_base_tick_interval.0, Duration::from_millis(500));
        assert_eq!(cfg.storage.raft_engine, EngineKind::Memory);
        assert_eq!(cfg.storage.raft_log_file_size.0, 64 << 20);
    }

    #[test]
    fn rejects_unknown_keys_and_short_read_timeouts() {
        assert!(matches!(Config::from_str("[raftstore]\nread-timout = \"10s\"\n"), Err(ConfigError::Parse(_))));
        let err = Config::from_str("[raftstore]\nread-timeout = \"5s\"\n").unwrap_err();
        assert!(err.to_string().contains("shorter than the election timeout"), "{}", err);
    }

    #[test]
    fn readable_values() {
        assert_eq!("2m".parse::<ReadableDuration>().unwrap().0, Duration::from_secs(120));
        assert!("10".parse::<ReadableDuration>().is_err());
        assert_eq!("512KB".parse::<ReadableSize>().unwrap().0, 512 << 10);
        assert_eq!("4096".parse::<ReadableSize>().unwrap().0, 4096);
    }
}
