#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "meta/object_meta.h"

namespace objstore {

struct ListResult {
  std::vector<ObjectMeta> objects;
  // Set when more keys follow; pass the last key as start_after to continue.
  bool truncated = false;
};

// The gateway's catalog of buckets and objects. It is kept in memory and made durable by an
// append-only log (<dir>/meta.log) of every change; Checkpoint() writes the whole catalog to
// <dir>/snapshot and empties the log. Open() loads the snapshot and replays the log.
class MetadataStore {
 public:
  explicit MetadataStore(std::string dir) : dir_(std::move(dir)) {}
  ~MetadataStore();
  MetadataStore(const MetadataStore&) = delete;
  MetadataStore& operator=(const MetadataStore&) = delete;

  Status Open();

  Status CreateBucket(const BucketInfo& bucket);
  // FAILED_PRECONDITION while the bucket holds objects.
  Status DeleteBucket(const std::string& name);
  std::vector<BucketInfo> ListBuckets() const;

  // Stores the object's metadata, replacing an older version; the replaced metadata (whose
  // chunks are now garbage) is returned in `replaced` when there was one.
  Status PutObject(const ObjectMeta& meta, ObjectMeta* replaced, bool* had_old);
  Status GetObject(const std::string& bucket, const std::string& key, ObjectMeta* out) const;
  Status DeleteObject(const std::string& bucket, const std::string& key, ObjectMeta* removed);
  Status ListObjects(const std::string& bucket, const std::string& prefix, const std::string& start_after,
                     size_t limit, ListResult* out) const;

  Status Checkpoint();
  uint64_t log_bytes() const;

 private:
  enum class Op : uint8_t { kCreateBucket = 1, kDeleteBucket = 2, kPutObject = 3, kDeleteObject = 4 };
  struct Bucket {
    BucketInfo info;
    std::map<std::string, ObjectMeta> objects;
  };

  Status LoadSnapshot();
  Status ReplayLog();
  bool ApplyRecord(std::string_view body);
  Status AppendLocked(const std::string& body);

  std::string dir_;
  mutable std::mutex mu_;
  std::map<std::string, Bucket> buckets_;
  int log_fd_ = -1;
  uint64_t log_bytes_ = 0;
};

}  // namespace objstore
