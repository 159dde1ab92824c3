#include "config/config.h"

#include "common/strings.h"

namespace objstore::config {

namespace {

// Reads typed values of one section, keeping the first error.
class SectionReader {
 public:
  SectionReader(const IniFile& ini, std::string section) : ini_(ini), section_(std::move(section)) {}

  void String(const char* key, std::string* out) {
    if (const std::string* v = ini_.Get(section_, key)) *out = *v;
  }

  void List(const char* key, std::vector<std::string>* out) {
    if (const std::string* v = ini_.Get(section_, key)) *out = SplitList(*v, ',');
  }

  void Int(const char* key, int* out) {
    const std::string* v = ini_.Get(section_, key);
    uint64_t n = 0;
    if (v == nullptr) return;
    if (!ParseUint64(*v, &n) || n > 1000000) return Fail(key, "a small non-negative integer");
    *out = static_cast<int>(n);
  }

  void Size(const char* key, uint64_t* out) {
    const std::string* v = ini_.Get(section_, key);
    if (v != nullptr && !ParseByteSize(*v, out)) Fail(key, "a size such as 65536 or 64KiB");
  }

  void Count(const char* key, size_t* out) {
    uint64_t n = *out;
    Size(key, &n);
    *out = static_cast<size_t>(n);
  }

  void Duration(const char* key, std::chrono::milliseconds* out) {
    const std::string* v = ini_.Get(section_, key);
    if (v != nullptr && !ParseDuration(*v, out)) Fail(key, "a duration such as 800ms or 2s");
  }

  void Bool(const char* key, bool* out) {
    const std::string* v = ini_.Get(section_, key);
    if (v == nullptr) return;
    if (*v == "true" || *v == "yes" || *v == "on") {
      *out = true;
    } else if (*v == "false" || *v == "no" || *v == "off") {
      *out = false;
    } else {
      Fail(key, "true or false");
    }
  }

  void Level(const char* key, LogLevel* out) {
    const std::string* v = ini_.Get(section_, key);
    if (v != nullptr && !ParseLogLevel(*v, out)) Fail(key, "debug, info, warn or error");
  }

  Status status() const { return status_; }

 private:
  void Fail(const char* key, const char* expected) {
    if (!status_.ok()) return;
    const std::string* v = ini_.Get(section_, key);
    status_ = Status::InvalidArgument(ini_.Where(section_, key) + ": " + section_ + "." + key + " = \"" +
                                      (v ? *v : "") + "\": expected " + expected);
  }

  const IniFile& ini_;
  std::string section_;
  Status status_;
};

Status CheckEndpoint(const std::string& what, const std::string& endpoint) {
  std::string host;
  uint16_t port = 0;
  if (!SplitHostPort(endpoint, &host, &port)) {
    return Status::InvalidArgument(what + ": \"" + endpoint + "\" is not host:port");
  }
  return Status::Ok();
}

}  // namespace

Status ReadGatewayConfig(const IniFile& ini, GatewayConfig* out) {
  SectionReader gateway(ini, "gateway");
  gateway.String("listen", &out->listen);
  gateway.String("metadata_dir", &out->metadata_dir);
  gateway.Level("log_level", &out->log_level);
  OBJSTORE_RETURN_IF_ERROR(gateway.status());

  SectionReader cluster(ini, "cluster");
  cluster.List("osds", &out->cluster.osds);
  cluster.Int("replication_factor", &out->cluster.replication_factor);
  cluster.Int("write_quorum", &out->cluster.write_quorum);
  cluster.Size("chunk_size", &out->cluster.chunk_size);
  OBJSTORE_RETURN_IF_ERROR(cluster.status());

  SectionReader rpc(ini, "rpc");
  rpc.Duration("read_timeout", &out->rpc.read_timeout);
  rpc.Int("read_retries", &out->rpc.read_retries);
  rpc.Count("max_idle_per_endpoint", &out->rpc.max_idle_per_endpoint);
  return rpc.status();
}

Status ReadChunkServerConfig(const IniFile& ini, ChunkServerConfig* out) {
  SectionReader s(ini, "chunkserver");
  s.String("listen", &out->listen);
  s.String("node_name", &out->node_name);
  s.String("data_dir", &out->data_dir);
  s.String("journal_path", &out->journal_path);
  s.Duration("journal_slow_fsync", &out->journal_slow_fsync);
  s.Size("journal_max_bytes", &out->journal_max_bytes);
  s.Bool("fsync_chunks", &out->fsync_chunks);
  s.Level("log_level", &out->log_level);
  return s.status();
}

Status Validate(const GatewayConfig& cfg) {
  OBJSTORE_RETURN_IF_ERROR(CheckEndpoint("gateway.listen", cfg.listen));
  for (const auto& osd : cfg.cluster.osds) OBJSTORE_RETURN_IF_ERROR(CheckEndpoint("cluster.osds", osd));
  const ClusterConfig& c = cfg.cluster;
  if (c.replication_factor < 1) return Status::InvalidArgument("cluster.replication_factor must be at least 1");
  if (c.write_quorum < 1 || c.write_quorum > c.replication_factor) {
    return Status::InvalidArgument("cluster.write_quorum must be between 1 and replication_factor (" +
                                   std::to_string(c.replication_factor) + "), is " + std::to_string(c.write_quorum));
  }
  if (c.osds.size() < static_cast<size_t>(c.replication_factor)) {
    return Status::InvalidArgument("cluster.osds lists " + std::to_string(c.osds.size()) +
                                   " nodes, fewer than replication_factor " + std::to_string(c.replication_factor));
  }
  if (c.chunk_size < 4096 || c.chunk_size > (64ull << 20)) {
    return Status::InvalidArgument("cluster.chunk_size must be between 4KiB and 64MiB");
  }
  if (cfg.rpc.read_timeout.count() <= 0) {
    return Status::InvalidArgument("rpc.read_timeout must be positive");
  }
  if (cfg.metadata_dir.empty()) return Status::InvalidArgument("gateway.metadata_dir is empty");
  return Status::Ok();
}

Status Validate(const ChunkServerConfig& cfg) {
  OBJSTORE_RETURN_IF_ERROR(CheckEndpoint("chunkserver.listen", cfg.listen));
  if (cfg.data_dir.empty()) return Status::InvalidArgument("chunkserver.data_dir is empty");
  if (cfg.journal_path.empty()) return Status::InvalidArgument("chunkserver.journal_path is empty");
  if (cfg.journal_max_bytes < (1ull << 20)) {
    return Status::InvalidArgument("chunkserver.journal_max_bytes must be at least 1MiB");
  }
  return Status::Ok();
}

}  // namespace objstore::config
