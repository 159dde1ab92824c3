#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "meta/metadata_store.h"
#include "metrics/metrics.h"
#include "rpc/rpc_client.h"
#include "store/placement.h"
#include "store/replica_reader.h"
#include "store/replica_writer.h"

namespace objstore {

struct ObjectServiceOptions {
  uint64_t chunk_size = 64 * 1024;
  int write_quorum = 2;  // the writer's; only reported in the log
  ReadOptions read;
};

// Objects on top of chunks: a PUT splits the body into chunks, writes each to the object's
// replicas through the ReplicaWriter and commits the metadata once every chunk reached its
// write quorum; a GET reads the chunks back through the ReplicaReader.
class ObjectService {
 public:
  ObjectService(MetadataStore* meta, const Placement* placement, ReplicaWriter* writer, ReplicaReader* reader,
                rpc::RpcClient* client, metrics::Registry* metrics, ObjectServiceOptions options);

  Status PutObject(const std::string& bucket, const std::string& key, std::string_view body,
                   const std::string& content_type, ObjectMeta* out);
  Status GetObject(const std::string& bucket, const std::string& key, ObjectMeta* meta, std::string* body);
  Status DeleteObject(const std::string& bucket, const std::string& key);

 private:
  std::string NewStorageId(const std::string& bucket, const std::string& key);
  Status WriteChunks(const std::string& path, const ObjectMeta& meta, std::string_view body,
                     std::vector<uint32_t>* checksums);
  // Best effort: a failure leaves garbage that the scrubber of objstore-admin finds.
  void DeleteChunks(const ObjectMeta& meta, size_t count);

  MetadataStore* meta_;
  const Placement* placement_;
  ReplicaWriter* writer_;
  ReplicaReader* reader_;
  rpc::RpcClient* client_;
  ObjectServiceOptions options_;
  uint64_t id_seed_;
  metrics::Counter* puts_ok_;
  metrics::Counter* puts_failed_;
  metrics::Counter* gets_;
  metrics::Counter* orphaned_chunks_;
  metrics::Histogram* put_seconds_;
};

}  // namespace objstore
