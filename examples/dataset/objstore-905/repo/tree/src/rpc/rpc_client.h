#pragma once

#include <chrono>
#include <string>

#include "common/status.h"
#include "rpc/connection_pool.h"

namespace objstore::rpc {

struct CallOptions {
  std::chrono::milliseconds timeout{2000};
  int max_retries = 0;
};

// Unary calls to storage nodes over pooled connections.
class RpcClient {
 public:
  explicit RpcClient(ConnectionPool* pool) : pool_(pool) {}

  Status Call(const std::string& endpoint, const std::string& method, const std::string& request,
              std::string* response, const CallOptions& options = {});

 private:
  Status CallOnce(const std::string& endpoint, const std::string& method, const std::string& request,
                  std::string* response, std::chrono::milliseconds timeout);

  ConnectionPool* pool_;
};

}  // namespace objstore::rpc
