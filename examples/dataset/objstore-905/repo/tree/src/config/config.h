#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/logging.h"
#include "common/status.h"
#include "config/ini_file.h"

namespace objstore::config {

// [rpc]: how the gateway talks to storage nodes.
struct RpcConfig {
  std::chrono::milliseconds read_timeout{2000};  // GetChunk and StatChunk
  int read_retries = 0;
  size_t max_idle_per_endpoint = 16;
};

// [cluster]: the storage nodes and the durability rules of a write.
struct ClusterConfig {
  std::vector<std::string> osds;  // "host:port" of every storage node
  int replication_factor = 3;
  int write_quorum = 2;
  uint64_t chunk_size = 64 * 1024;
};

// objstore-gateway's configuration file.
struct GatewayConfig {
  std::string listen = "0.0.0.0:8700";
  std::string metadata_dir = "/var/lib/objstore/meta";
  LogLevel log_level = LogLevel::kInfo;
  ClusterConfig cluster;
  RpcConfig rpc;
};

// objstore-chunkserver's configuration file.
struct ChunkServerConfig {
  std::string listen = "0.0.0.0:7100";
  std::string node_name;  // defaults to the host name
  std::string data_dir = "/data/chunks";
  std::string journal_path = "/data/journal";
  // A journal fsync slower than this is logged.
  std::chrono::milliseconds journal_slow_fsync{500};
  uint64_t journal_max_bytes = 256ull << 20;
  bool fsync_chunks = true;
  LogLevel log_level = LogLevel::kInfo;
};

// Reads the sections above from a parsed file. Absent keys keep their defaults; present
// keys that do not parse are errors naming the file and line.
Status ReadGatewayConfig(const IniFile& ini, GatewayConfig* out);
Status ReadChunkServerConfig(const IniFile& ini, ChunkServerConfig* out);

// Cross-field rules: quorum within the replication factor, enough storage nodes, sizes in
// range.
Status Validate(const GatewayConfig& cfg);
Status Validate(const ChunkServerConfig& cfg);

}  // namespace objstore::config
