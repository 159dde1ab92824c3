#include "meta/object_meta.h"

#include <cctype>

#include "common/crc32c.h"
#include "common/strings.h"

namespace objstore {

std::string ObjectMeta::ETag() const {
  uint32_t crc = 0;
  for (uint32_t c : chunk_checksums) {
    unsigned char be[4] = {static_cast<unsigned char>(c >> 24), static_cast<unsigned char>(c >> 16),
                           static_cast<unsigned char>(c >> 8), static_cast<unsigned char>(c)};
    crc = Crc32cExtend(crc, be, sizeof be);
  }
  return Hex32(crc) + "-" + std::to_string(chunk_checksums.size());
}

Status ValidateBucketName(std::string_view name) {
  if (name.size() < 3 || name.size() > 63) {
    return Status::InvalidArgument("bucket name \"" + std::string(name) + "\" must be 3 to 63 characters");
  }
  for (char c : name) {
    bool allowed = std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
                   c == '.' || c == '-';
    if (!allowed) return Status::InvalidArgument("bucket name \"" + std::string(name) + "\" has invalid characters");
  }
  if (!std::isalnum(static_cast<unsigned char>(name.front())) || !std::isalnum(static_cast<unsigned char>(name.back()))) {
    return Status::InvalidArgument("bucket name \"" + std::string(name) + "\" must start and end with a letter or digit");
  }
  return Status::Ok();
}

Status ValidateObjectKey(std::string_view key) {
  if (key.empty() || key.size() > 1024) return Status::InvalidArgument("object key must be 1 to 1024 bytes");
  if (key.find('\0') != std::string_view::npos) return Status::InvalidArgument("object key contains NUL");
  return Status::Ok();
}

void EncodeBucket(const BucketInfo& b, rpc::WireWriter* w) {
  w->PutString(b.name);
  w->PutString(b.owner);
  w->PutU64(static_cast<uint64_t>(b.created));
}

bool DecodeBucket(rpc::WireReader* r, BucketInfo* b) {
  b->name = r->GetString();
  b->owner = r->GetString();
  b->created = static_cast<int64_t>(r->GetU64());
  return r->ok();
}

void EncodeObjectMeta(const ObjectMeta& m, rpc::WireWriter* w) {
  w->PutString(m.bucket);
  w->PutString(m.key);
  w->PutString(m.storage_id);
  w->PutU64(m.size);
  w->PutU32(m.chunk_size);
  w->PutU32(static_cast<uint32_t>(m.chunk_checksums.size()));
  for (uint32_t c : m.chunk_checksums) w->PutU32(c);
  w->PutU32(static_cast<uint32_t>(m.replicas.size()));
  for (const auto& r : m.replicas) w->PutString(r);
  w->PutString(m.content_type);
  w->PutU64(static_cast<uint64_t>(m.mtime));
}

bool DecodeObjectMeta(rpc::WireReader* r, ObjectMeta* m) {
  m->bucket = r->GetString();
  m->key = r->GetString();
  m->storage_id = r->GetString();
  m->size = r->GetU64();
  m->chunk_size = r->GetU32();
  uint32_t chunks = r->GetU32();
  // Bound the counts by what is left so a corrupt count cannot allocate gigabytes.
  if (!r->ok() || chunks > (1u << 24)) return false;
  m->chunk_checksums.resize(chunks);
  for (auto& c : m->chunk_checksums) c = r->GetU32();
  uint32_t replicas = r->GetU32();
  if (!r->ok() || replicas > 64) return false;
  m->replicas.resize(replicas);
  for (auto& rep : m->replicas) rep = r->GetString();
  m->content_type = r->GetString();
  m->mtime = static_cast<int64_t>(r->GetU64());
  return r->ok();
}

}  // namespace objstore
