#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "rpc/wire.h"

namespace objstore {

struct BucketInfo {
  std::string name;
  std::string owner;
  int64_t created = 0;  // unix seconds
};

// Where an object's bytes live: chunk i of the object is the chunk "<storage_id>:<i>" on
// every node of `replicas`, and chunk_checksums[i] is what its replicas acked.
struct ObjectMeta {
  std::string bucket;
  std::string key;
  std::string storage_id;
  uint64_t size = 0;
  uint32_t chunk_size = 0;
  std::vector<uint32_t> chunk_checksums;
  std::vector<std::string> replicas;
  std::string content_type;
  int64_t mtime = 0;

  size_t chunk_count() const { return chunk_checksums.size(); }
  // A digest of the chunk checksums, returned to clients as the object's ETag.
  std::string ETag() const;
};

// Bucket names follow the S3 rules that matter to us: 3-63 characters of [a-z0-9.-],
// starting and ending with a letter or digit.
Status ValidateBucketName(std::string_view name);
// Keys are 1-1024 bytes and contain no NUL.
Status ValidateObjectKey(std::string_view key);

void EncodeBucket(const BucketInfo& b, rpc::WireWriter* w);
bool DecodeBucket(rpc::WireReader* r, BucketInfo* b);
void EncodeObjectMeta(const ObjectMeta& m, rpc::WireWriter* w);
bool DecodeObjectMeta(rpc::WireReader* r, ObjectMeta* m);

}  // namespace objstore
