#include "gateway/object_service.h"

#include <atomic>
#include <chrono>
#include <random>

#include "common/logging.h"
#include "common/strings.h"
#include "store/chunk_protocol.h"

namespace objstore {

namespace {

std::atomic<uint64_t> id_counter{0};

int64_t NowUnix() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

ObjectService::ObjectService(MetadataStore* meta, const Placement* placement, ReplicaWriter* writer,
                             ReplicaReader* reader, rpc::RpcClient* client, metrics::Registry* metrics,
                             ObjectServiceOptions options)
    : meta_(meta),
      placement_(placement),
      writer_(writer),
      reader_(reader),
      client_(client),
      options_(options),
      id_seed_(std::random_device{}()) {
  puts_ok_ = metrics->GetCounter("gateway_puts_total", "Object PUTs", {{"result", "ok"}});
  puts_failed_ = metrics->GetCounter("gateway_puts_total", "Object PUTs", {{"result", "failed"}});
  gets_ = metrics->GetCounter("gateway_gets_total", "Object GETs");
  orphaned_chunks_ = metrics->GetCounter("gateway_orphaned_chunks_total",
                                         "Chunks whose delete failed and that wait for the scrubber");
  put_seconds_ = metrics->GetHistogram("gateway_put_seconds", "Object PUT latency", metrics::LatencyBounds());
}

// Eight hex digits, new for every version of an object so that a PUT never overwrites the
// chunks of the version readers may still be reading.
std::string ObjectService::NewStorageId(const std::string& bucket, const std::string& key) {
  std::string seed = bucket + "/" + key + "#" + std::to_string(id_seed_) + "#" + std::to_string(id_counter++);
  return Hex32(ReplicaWriter::Checksum(seed));
}

Status ObjectService::WriteChunks(const std::string& path, const ObjectMeta& meta, std::string_view body,
                                  std::vector<uint32_t>* checksums) {
  const size_t chunks = meta.chunk_count();
  for (size_t i = 0; i < chunks; ++i) {
    std::string data(body.substr(i * options_.chunk_size, options_.chunk_size));
    ChunkId id{meta.storage_id, static_cast<uint32_t>(i)};
    Status s = writer_->WriteChunk(id, data, meta.replicas);
    if (!s.ok()) {
      OBJSTORE_LOG(Error, "gateway") << "PUT " << path << " -> 503 " << s.message();
      DeleteChunks(meta, i + 1);
      return s;
    }
    (*checksums)[i] = ReplicaWriter::Checksum(data);
  }
  return Status::Ok();
}

Status ObjectService::PutObject(const std::string& bucket, const std::string& key, std::string_view body,
                                const std::string& content_type, ObjectMeta* out) {
  metrics::ScopedTimer timer(put_seconds_);
  OBJSTORE_RETURN_IF_ERROR(ValidateObjectKey(key));
  const std::string path = "/" + bucket + "/" + key;
  ObjectMeta meta;
  meta.bucket = bucket;
  meta.key = key;
  meta.storage_id = NewStorageId(bucket, key);
  meta.size = body.size();
  meta.chunk_size = static_cast<uint32_t>(options_.chunk_size);
  meta.replicas = placement_->ReplicasFor(meta.storage_id);
  meta.content_type = content_type.empty() ? "application/octet-stream" : content_type;
  meta.mtime = NowUnix();
  // An empty object still has one (empty) chunk, so every object has replicas to read from.
  size_t chunks = body.empty() ? 1 : (body.size() + options_.chunk_size - 1) / options_.chunk_size;
  meta.chunk_checksums.assign(chunks, 0);
  OBJSTORE_LOG(Info, "gateway") << "PUT " << path << " (" << chunks << " chunks)";

  if (Status s = WriteChunks(path, meta, body, &meta.chunk_checksums); !s.ok()) {
    puts_failed_->Inc();
    return s;
  }
  ObjectMeta replaced;
  bool had_old = false;
  if (Status s = meta_->PutObject(meta, &replaced, &had_old); !s.ok()) {
    OBJSTORE_LOG(Error, "gateway") << "PUT " << path << " -> 500 metadata: " << s.ToString();
    DeleteChunks(meta, chunks);
    puts_failed_->Inc();
    return s;
  }
  if (had_old) DeleteChunks(replaced, replaced.chunk_count());
  OBJSTORE_LOG(Info, "gateway") << "PUT " << path << " -> 200 (quorum " << options_.write_quorum << "/"
                                << meta.replicas.size() << " on every chunk)";
  puts_ok_->Inc();
  *out = std::move(meta);
  return Status::Ok();
}

Status ObjectService::GetObject(const std::string& bucket, const std::string& key, ObjectMeta* meta,
                                std::string* body) {
  gets_->Inc();
  OBJSTORE_RETURN_IF_ERROR(meta_->GetObject(bucket, key, meta));
  body->clear();
  body->reserve(meta->size);
  for (size_t i = 0; i < meta->chunk_count(); ++i) {
    ChunkId id{meta->storage_id, static_cast<uint32_t>(i)};
    std::string chunk;
    Status s = reader_->ReadChunk(id, meta->chunk_checksums[i], meta->replicas, options_.read, &chunk);
    if (!s.ok()) {
      OBJSTORE_LOG(Error, "gateway") << "GET /" << bucket << "/" << key << " -> 500 " << s.message();
      return s;
    }
    body->append(chunk);
  }
  if (body->size() != meta->size) {
    return Status::DataLoss("object /" + bucket + "/" + key + ": read " + std::to_string(body->size()) +
                            " bytes, metadata says " + std::to_string(meta->size));
  }
  return Status::Ok();
}

Status ObjectService::DeleteObject(const std::string& bucket, const std::string& key) {
  ObjectMeta removed;
  OBJSTORE_RETURN_IF_ERROR(meta_->DeleteObject(bucket, key, &removed));
  DeleteChunks(removed, removed.chunk_count());
  OBJSTORE_LOG(Info, "gateway") << "DELETE /" << bucket << "/" << key << " -> 204";
  return Status::Ok();
}

void ObjectService::DeleteChunks(const ObjectMeta& meta, size_t count) {
  rpc::CallOptions opts;
  opts.timeout = std::chrono::milliseconds(1000);
  for (size_t i = 0; i < count; ++i) {
    ChunkId id{meta.storage_id, static_cast<uint32_t>(i)};
    for (const auto& replica : meta.replicas) {
      std::string ignored;
      Status s = client_->Call(replica, chunk_methods::kDelete, id.ToString(), &ignored, opts);
      if (!s.ok() && s.message().find("NOT_FOUND") == std::string::npos) {
        orphaned_chunks_->Inc();
        OBJSTORE_LOG(Warn, "gateway") << "delete of " << id.ToString() << " on " << replica
                                      << " failed: " << s.ToString();
      }
    }
  }
}

}  // namespace objstore
