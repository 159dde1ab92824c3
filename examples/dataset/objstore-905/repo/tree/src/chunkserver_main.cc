#include <unistd.h>

#include <iostream>
#include <string>

#include "common/logging.h"
#include "common/shutdown.h"
#include "config/config.h"
#include "metrics/metrics.h"
#include "rpc/server.h"
#include "store/chunk_protocol.h"
#include "store/chunk_service.h"
#include "store/chunk_store.h"
#include "store/journal.h"

namespace {

bool LoadConfig(const std::string& path, objstore::config::ChunkServerConfig* cfg) {
  objstore::config::IniFile ini;
  objstore::Status s = objstore::config::IniFile::Load(path, &ini);
  if (s.ok()) s = objstore::config::ReadChunkServerConfig(ini, cfg);
  if (s.ok()) s = objstore::config::Validate(*cfg);
  if (!s.ok()) {
    std::cerr << "objstore-chunkserver: " << s.ToString() << std::endl;
    return false;
  }
  for (const auto& key : ini.Unread()) OBJSTORE_LOG(Warn, "chunkserver") << path << ": unknown setting " << key;
  if (cfg->node_name.empty()) {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    cfg->node_name = host;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || std::string(argv[1]) != "--config") {
    std::cerr << "usage: objstore-chunkserver --config <file>" << std::endl;
    return 2;
  }
  objstore::BlockShutdownSignals();
  objstore::config::ChunkServerConfig cfg;
  if (!LoadConfig(argv[2], &cfg)) return 2;
  objstore::SetMinLogLevel(cfg.log_level);
  objstore::metrics::Registry* metrics = objstore::metrics::DefaultRegistry();

  objstore::ChunkStore store({cfg.data_dir, cfg.fsync_chunks});
  if (objstore::Status s = store.Open(); !s.ok()) {
    OBJSTORE_LOG(Error, "chunkserver") << s.ToString();
    return 1;
  }
  objstore::Journal journal({cfg.journal_path, cfg.journal_slow_fsync, cfg.journal_max_bytes, metrics});
  objstore::ChunkService service(cfg.node_name, &store, &journal, metrics);
  objstore::Status s = journal.Open([&](const objstore::JournalRecord& r) { service.OnReplay(r); });
  if (!s.ok()) {
    OBJSTORE_LOG(Error, "chunkserver") << s.ToString();
    return 1;
  }
  service.FinishReplay();

  objstore::rpc::ServerOptions options;
  options.listen = cfg.listen;
  options.metrics = metrics;
  objstore::rpc::RpcServer server(options);
  service.RegisterWith(&server);
  server.Register(objstore::chunk_methods::kMetrics, [metrics](const std::string&, std::string* resp) {
    *resp = metrics->RenderText();
    return objstore::Status::Ok();
  });
  if (s = server.Start(); !s.ok()) {
    OBJSTORE_LOG(Error, "chunkserver") << s.ToString();
    return 1;
  }
  OBJSTORE_LOG(Info, "chunkserver") << cfg.node_name << " serving " << cfg.data_dir;
  objstore::WaitForShutdownSignal();
  server.Stop();
  OBJSTORE_LOG(Info, "chunkserver") << "stopped";
  return 0;
}
