#include <iostream>
#include <string>
#include <vector>

#include "common/logging.h"
#include "common/shutdown.h"
#include "config/config.h"
#include "gateway/gateway_service.h"
#include "gateway/object_service.h"
#include "meta/metadata_store.h"
#include "metrics/metrics.h"
#include "rpc/connection_pool.h"
#include "rpc/rpc_client.h"
#include "rpc/server.h"
#include "store/placement.h"
#include "store/replica_reader.h"
#include "store/replica_writer.h"

namespace {

int Usage() {
  std::cerr << "usage: objstore-gateway --config <file>" << std::endl;
  return 2;
}

bool LoadConfig(const std::string& path, objstore::config::GatewayConfig* cfg) {
  objstore::config::IniFile ini;
  objstore::Status s = objstore::config::IniFile::Load(path, &ini);
  if (s.ok()) s = objstore::config::ReadGatewayConfig(ini, cfg);
  if (s.ok()) s = objstore::config::Validate(*cfg);
  if (!s.ok()) {
    std::cerr << "objstore-gateway: " << s.ToString() << std::endl;
    return false;
  }
  for (const auto& key : ini.Unread()) OBJSTORE_LOG(Warn, "gateway") << path << ": unknown setting " << key;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || std::string(argv[1]) != "--config") return Usage();
  objstore::BlockShutdownSignals();
  objstore::config::GatewayConfig cfg;
  if (!LoadConfig(argv[2], &cfg)) return 2;
  objstore::SetMinLogLevel(cfg.log_level);

  objstore::metrics::Registry* metrics = objstore::metrics::DefaultRegistry();
  objstore::MetadataStore meta(cfg.metadata_dir);
  if (objstore::Status s = meta.Open(); !s.ok()) {
    OBJSTORE_LOG(Error, "gateway") << "cannot open metadata: " << s.ToString();
    return 1;
  }
  objstore::Placement placement(cfg.cluster.osds, cfg.cluster.replication_factor);
  objstore::rpc::ConnectionPool pool(cfg.rpc.max_idle_per_endpoint);
  objstore::rpc::RpcClient client(&pool);
  objstore::ReplicaWriter writer(&client, cfg.cluster.write_quorum);
  objstore::ReplicaReader reader(&client, metrics);

  objstore::ObjectServiceOptions options;
  options.chunk_size = cfg.cluster.chunk_size;
  options.write_quorum = cfg.cluster.write_quorum;
  options.read.timeout = cfg.rpc.read_timeout;
  options.read.retries = cfg.rpc.read_retries;
  objstore::ObjectService objects(&meta, &placement, &writer, &reader, &client, metrics, options);
  objstore::GatewayService service(&objects, &meta, metrics);

  objstore::rpc::ServerOptions server_options;
  server_options.listen = cfg.listen;
  server_options.metrics = metrics;
  objstore::rpc::RpcServer server(server_options);
  service.RegisterWith(&server);
  if (objstore::Status s = server.Start(); !s.ok()) {
    OBJSTORE_LOG(Error, "gateway") << s.ToString();
    return 1;
  }
  OBJSTORE_LOG(Info, "gateway") << "serving " << cfg.cluster.osds.size() << " storage nodes, replication "
                                << cfg.cluster.replication_factor << ", write quorum " << cfg.cluster.write_quorum;

  int sig = objstore::WaitForShutdownSignal();
  OBJSTORE_LOG(Info, "gateway") << "signal " << sig << ", shutting down";
  server.Stop();
  if (objstore::Status s = meta.Checkpoint(); !s.ok()) {
    OBJSTORE_LOG(Warn, "gateway") << "final checkpoint failed: " << s.ToString();
  }
  return 0;
}
