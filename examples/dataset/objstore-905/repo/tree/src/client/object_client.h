#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "meta/object_meta.h"
#include "rpc/connection_pool.h"
#include "rpc/rpc_client.h"

namespace objstore::client {

struct ClientOptions {
  // Gateways to use, tried in turn when one is unreachable.
  std::vector<std::string> gateways;
  std::chrono::milliseconds timeout{10000};
  int retries = 1;
};

// The client library: buckets and objects through any of the gateways.
//
//   client::ObjectClient c({.gateways = {"gw-1:8700", "gw-2:8700"}});
//   c.Put("media", "cat.jpg", bytes, "image/jpeg");
class ObjectClient {
 public:
  explicit ObjectClient(ClientOptions options);

  Status CreateBucket(const std::string& name, const std::string& owner);
  Status DeleteBucket(const std::string& name);
  Status ListBuckets(std::vector<BucketInfo>* out);

  Status Put(const std::string& bucket, const std::string& key, const std::string& data,
             const std::string& content_type = "", ObjectMeta* meta = nullptr);
  Status Get(const std::string& bucket, const std::string& key, std::string* data, ObjectMeta* meta = nullptr);
  Status Head(const std::string& bucket, const std::string& key, ObjectMeta* meta);
  Status Delete(const std::string& bucket, const std::string& key);

  // Calls fn for every object under prefix in key order, fetching pages as needed; fn
  // returns false to stop early.
  Status List(const std::string& bucket, const std::string& prefix, const std::function<bool(const ObjectMeta&)>& fn);

  Status Checkpoint();
  Status FetchMetrics(std::string* text);

 private:
  Status Invoke(const char* method, const std::string& request, std::string* response);

  ClientOptions options_;
  rpc::ConnectionPool pool_;
  rpc::RpcClient rpc_;
  std::atomic<size_t> next_gateway_{0};
};

// The gateway's error frames reach the caller as INTERNAL "<endpoint> <method>: <CODE>: <text>".
// Recovers the original code (NOT_FOUND, ALREADY_EXISTS, ...) so callers can branch on it.
Status RemoteStatus(const Status& s);

}  // namespace objstore::client
