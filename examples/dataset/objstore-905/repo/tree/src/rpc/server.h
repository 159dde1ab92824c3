#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "metrics/metrics.h"
#include "rpc/connection.h"

namespace objstore::rpc {

struct ServerOptions {
  // "host:port"; port 0 picks a free port (see RpcServer::port()).
  std::string listen = "0.0.0.0:7100";
  // Connections beyond this are accepted and closed at once.
  size_t max_connections = 1024;
  // A connection with no request for this long is closed.
  std::chrono::milliseconds idle_timeout{std::chrono::minutes(5)};
  metrics::Registry* metrics = nullptr;  // defaults to metrics::DefaultRegistry()
};

// Handles one request. A failed status is sent back as an "error" frame carrying
// status.ToString(); `response` is ignored then.
using Handler = std::function<Status(const std::string& request, std::string* response)>;

// Serves unary calls: one thread per connection, requests on a connection answered in
// order, each response carrying the request id of its request.
class RpcServer {
 public:
  explicit RpcServer(ServerOptions options);
  ~RpcServer();
  RpcServer(const RpcServer&) = delete;
  RpcServer& operator=(const RpcServer&) = delete;

  // Registers a method; only before Start().
  void Register(const std::string& method, Handler handler);

  Status Start();
  // Stops accepting, closes every connection and waits for the workers. Idempotent.
  void Stop();

  uint16_t port() const { return port_; }
  size_t active_connections() const;

 private:
  struct MethodEntry {
    Handler handler;
    metrics::Counter* requests = nullptr;
    metrics::Histogram* latency = nullptr;
  };
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };

  void AcceptLoop();
  void Serve(int fd, std::string peer, std::shared_ptr<std::atomic<bool>> done);
  Frame Dispatch(const Frame& request);
  void CountError(const std::string& method, const Status& s);
  void ReapFinishedWorkers();

  ServerOptions options_;
  metrics::Registry* metrics_;
  std::map<std::string, MethodEntry> methods_;
  metrics::Gauge* connections_gauge_ = nullptr;
  metrics::Counter* rejected_ = nullptr;

  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;

  mutable std::mutex mu_;
  std::set<int> open_fds_;  // guarded by mu_; shut down by Stop()
  std::vector<Worker> workers_;
};

}  // namespace objstore::rpc
