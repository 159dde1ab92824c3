#include "meta/metadata_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/logging.h"
#include "common/record_io.h"

namespace objstore {

namespace {

constexpr size_t kMaxRecord = 16u << 20;

std::string SnapshotPath(const std::string& dir) { return dir + "/snapshot"; }
std::string LogPath(const std::string& dir) { return dir + "/meta.log"; }

}  // namespace

MetadataStore::~MetadataStore() {
  if (log_fd_ >= 0) ::close(log_fd_);
}

Status MetadataStore::Open() {
  if (::mkdir(dir_.c_str(), 0755) != 0 && errno != EEXIST) {
    return Status::Internal("mkdir " + dir_ + ": " + std::strerror(errno));
  }
  std::lock_guard<std::mutex> lock(mu_);
  OBJSTORE_RETURN_IF_ERROR(LoadSnapshot());
  OBJSTORE_RETURN_IF_ERROR(ReplayLog());
  size_t objects = 0;
  for (const auto& [name, bucket] : buckets_) objects += bucket.objects.size();
  OBJSTORE_LOG(Info, "metadata") << "loaded " << buckets_.size() << " buckets, " << objects << " objects from "
                                 << dir_;
  return Status::Ok();
}

Status MetadataStore::LoadSnapshot() {
  std::string data;
  Status s = ReadFileToString(SnapshotPath(dir_), &data);
  if (s.code() == Code::kNotFound) return Status::Ok();
  OBJSTORE_RETURN_IF_ERROR(s);
  size_t good = ScanRecords(data, kMaxRecord, [this](std::string_view body) { return ApplyRecord(body); });
  // The snapshot is written atomically, so unlike the log it has no torn tail to forgive.
  if (good != data.size()) return Status::DataLoss(SnapshotPath(dir_) + ": damaged at offset " + std::to_string(good));
  return Status::Ok();
}

Status MetadataStore::ReplayLog() {
  const std::string path = LogPath(dir_);
  std::string data;
  Status s = ReadFileToString(path, &data);
  if (!s.ok() && s.code() != Code::kNotFound) return s;
  size_t good = ScanRecords(data, kMaxRecord, [this](std::string_view body) { return ApplyRecord(body); });
  log_fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (log_fd_ < 0) return Status::Internal("open " + path + ": " + std::strerror(errno));
  if (good != data.size()) {
    OBJSTORE_LOG(Warn, "metadata") << path << ": dropping " << (data.size() - good) << " bytes of a torn tail";
    if (::ftruncate(log_fd_, static_cast<off_t>(good)) != 0) {
      return Status::Internal("truncate " + path + ": " + std::strerror(errno));
    }
  }
  ::lseek(log_fd_, static_cast<off_t>(good), SEEK_SET);
  log_bytes_ = good;
  return Status::Ok();
}

// Records are idempotent (create if absent, put replaces, delete if present) so a log that
// overlaps the snapshot after a crash during Checkpoint() replays to the same state.
bool MetadataStore::ApplyRecord(std::string_view body) {
  rpc::WireReader r(body);
  auto op = static_cast<Op>(r.GetU8());
  switch (op) {
    case Op::kCreateBucket: {
      BucketInfo info;
      if (!DecodeBucket(&r, &info)) return false;
      buckets_.try_emplace(info.name, Bucket{info, {}});
      return true;
    }
    case Op::kDeleteBucket: {
      std::string name = r.GetString();
      if (!r.ok()) return false;
      buckets_.erase(name);
      return true;
    }
    case Op::kPutObject: {
      ObjectMeta meta;
      if (!DecodeObjectMeta(&r, &meta)) return false;
      auto it = buckets_.find(meta.bucket);
      if (it != buckets_.end()) it->second.objects[meta.key] = std::move(meta);
      return true;
    }
    case Op::kDeleteObject: {
      std::string bucket = r.GetString();
      std::string key = r.GetString();
      if (!r.ok()) return false;
      auto it = buckets_.find(bucket);
      if (it != buckets_.end()) it->second.objects.erase(key);
      return true;
    }
  }
  return false;
}

Status MetadataStore::AppendLocked(const std::string& body) {
  std::string frame = FrameRecord(body);
  size_t off = 0;
  while (off < frame.size()) {
    ssize_t n = ::write(log_fd_, frame.data() + off, frame.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Internal("append to " + LogPath(dir_) + ": " + std::strerror(errno));
    off += static_cast<size_t>(n);
  }
  if (::fdatasync(log_fd_) != 0) return Status::Internal("fsync " + LogPath(dir_) + ": " + std::strerror(errno));
  log_bytes_ += frame.size();
  return Status::Ok();
}

Status MetadataStore::CreateBucket(const BucketInfo& bucket) {
  OBJSTORE_RETURN_IF_ERROR(ValidateBucketName(bucket.name));
  std::lock_guard<std::mutex> lock(mu_);
  if (buckets_.count(bucket.name) != 0) return Status::AlreadyExists("bucket " + bucket.name);
  rpc::WireWriter w;
  w.PutU8(static_cast<uint8_t>(Op::kCreateBucket));
  EncodeBucket(bucket, &w);
  OBJSTORE_RETURN_IF_ERROR(AppendLocked(w.data()));
  buckets_.emplace(bucket.name, Bucket{bucket, {}});
  return Status::Ok();
}

Status MetadataStore::DeleteBucket(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = buckets_.find(name);
  if (it == buckets_.end()) return Status::NotFound("bucket " + name);
  if (!it->second.objects.empty()) {
    return Status::FailedPrecondition("bucket " + name + " holds " + std::to_string(it->second.objects.size()) +
                                      " objects");
  }
  rpc::WireWriter w;
  w.PutU8(static_cast<uint8_t>(Op::kDeleteBucket));
  w.PutString(name);
  OBJSTORE_RETURN_IF_ERROR(AppendLocked(w.data()));
  buckets_.erase(it);
  return Status::Ok();
}

std::vector<BucketInfo> MetadataStore::ListBuckets() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<BucketInfo> out;
  for (const auto& [name, bucket] : buckets_) out.push_back(bucket.info);
  return out;
}

Status MetadataStore::PutObject(const ObjectMeta& meta, ObjectMeta* replaced, bool* had_old) {
  OBJSTORE_RETURN_IF_ERROR(ValidateObjectKey(meta.key));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = buckets_.find(meta.bucket);
  if (it == buckets_.end()) return Status::NotFound("bucket " + meta.bucket);
  rpc::WireWriter w;
  w.PutU8(static_cast<uint8_t>(Op::kPutObject));
  EncodeObjectMeta(meta, &w);
  OBJSTORE_RETURN_IF_ERROR(AppendLocked(w.data()));
  auto old = it->second.objects.find(meta.key);
  *had_old = old != it->second.objects.end();
  if (*had_old) *replaced = std::move(old->second);
  it->second.objects[meta.key] = meta;
  return Status::Ok();
}

Status MetadataStore::GetObject(const std::string& bucket, const std::string& key, ObjectMeta* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto b = buckets_.find(bucket);
  if (b == buckets_.end()) return Status::NotFound("bucket " + bucket);
  auto o = b->second.objects.find(key);
  if (o == b->second.objects.end()) return Status::NotFound("object " + bucket + "/" + key);
  *out = o->second;
  return Status::Ok();
}

Status MetadataStore::DeleteObject(const std::string& bucket, const std::string& key, ObjectMeta* removed) {
  std::lock_guard<std::mutex> lock(mu_);
  auto b = buckets_.find(bucket);
  if (b == buckets_.end()) return Status::NotFound("bucket " + bucket);
  auto o = b->second.objects.find(key);
  if (o == b->second.objects.end()) return Status::NotFound("object " + bucket + "/" + key);
  rpc::WireWriter w;
  w.PutU8(static_cast<uint8_t>(Op::kDeleteObject));
  w.PutString(bucket);
  w.PutString(key);
  OBJSTORE_RETURN_IF_ERROR(AppendLocked(w.data()));
  *removed = std::move(o->second);
  b->second.objects.erase(o);
  return Status::Ok();
}

Status MetadataStore::ListObjects(const std::string& bucket, const std::string& prefix, const std::string& start_after,
                                  size_t limit, ListResult* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto b = buckets_.find(bucket);
  if (b == buckets_.end()) return Status::NotFound("bucket " + bucket);
  const auto& objects = b->second.objects;
  auto it = start_after.empty() ? objects.lower_bound(prefix) : objects.upper_bound(start_after);
  if (!start_after.empty() && start_after < prefix) it = objects.lower_bound(prefix);
  out->objects.clear();
  out->truncated = false;
  for (; it != objects.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    if (out->objects.size() == limit) {
      out->truncated = true;
      break;
    }
    out->objects.push_back(it->second);
  }
  return Status::Ok();
}

Status MetadataStore::Checkpoint() {
  std::lock_guard<std::mutex> lock(mu_);
  std::string snapshot;
  for (const auto& [name, bucket] : buckets_) {
    rpc::WireWriter w;
    w.PutU8(static_cast<uint8_t>(Op::kCreateBucket));
    EncodeBucket(bucket.info, &w);
    snapshot += FrameRecord(w.data());
    for (const auto& [key, meta] : bucket.objects) {
      rpc::WireWriter o;
      o.PutU8(static_cast<uint8_t>(Op::kPutObject));
      EncodeObjectMeta(meta, &o);
      snapshot += FrameRecord(o.data());
    }
  }
  OBJSTORE_RETURN_IF_ERROR(WriteFileAtomic(SnapshotPath(dir_), snapshot));
  if (::ftruncate(log_fd_, 0) != 0 || ::lseek(log_fd_, 0, SEEK_SET) != 0) {
    return Status::Internal("truncate " + LogPath(dir_) + ": " + std::strerror(errno));
  }
  OBJSTORE_LOG(Info, "metadata") << "checkpoint: " << snapshot.size() << " bytes, log of " << log_bytes_
                                 << " bytes emptied";
  log_bytes_ = 0;
  return Status::Ok();
}

uint64_t MetadataStore::log_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return log_bytes_;
}

}  // namespace objstore
