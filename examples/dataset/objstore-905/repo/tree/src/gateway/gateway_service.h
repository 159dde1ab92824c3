#pragma once

#include <string>

#include "common/status.h"
#include "gateway/object_service.h"
#include "meta/metadata_store.h"
#include "metrics/metrics.h"
#include "rpc/server.h"

namespace objstore {

// Decodes the client-facing methods of gateway_protocol.h and calls the object service and
// the metadata store.
class GatewayService {
 public:
  GatewayService(ObjectService* objects, MetadataStore* meta, metrics::Registry* metrics)
      : objects_(objects), meta_(meta), metrics_(metrics) {}

  void RegisterWith(rpc::RpcServer* server);

 private:
  Status CreateBucket(const std::string& req, std::string* resp);
  Status DeleteBucket(const std::string& req, std::string* resp);
  Status ListBuckets(const std::string& req, std::string* resp);
  Status PutObject(const std::string& req, std::string* resp);
  Status GetObject(const std::string& req, std::string* resp);
  Status HeadObject(const std::string& req, std::string* resp);
  Status DeleteObject(const std::string& req, std::string* resp);
  Status ListObjects(const std::string& req, std::string* resp);

  ObjectService* objects_;
  MetadataStore* meta_;
  metrics::Registry* metrics_;
};

}  // namespace objstore
