#include "store/chunk_service.h"

#include "common/logging.h"
#include "common/strings.h"

namespace objstore {

ChunkService::ChunkService(std::string node_name, ChunkStore* store, Journal* journal, metrics::Registry* metrics)
    : node_name_(std::move(node_name)), store_(store), journal_(journal) {
  bytes_written_ = metrics->GetCounter("chunkserver_bytes_written_total", "Chunk bytes stored");
  bytes_read_ = metrics->GetCounter("chunkserver_bytes_read_total", "Chunk bytes served");
  corrupt_reads_ = metrics->GetCounter("chunkserver_corrupt_reads_total", "Reads that found a damaged chunk file");
  put_seconds_ = metrics->GetHistogram("chunkserver_put_seconds", "PutChunk time including journal and fsync",
                                       metrics::LatencyBounds());
}

void ChunkService::OnReplay(const JournalRecord& record) {
  const std::string id = record.id.ToString();
  switch (record.op) {
    case JournalOp::kPutBegin:
      unfinished_.insert(id);
      break;
    case JournalOp::kPutDone:
    case JournalOp::kDelete:
      unfinished_.erase(id);
      break;
  }
}

void ChunkService::FinishReplay() {
  for (const std::string& text : unfinished_) {
    ChunkId id;
    if (!ParseChunkId(text, &id)) continue;
    std::string data;
    Status s = store_->Get(id, &data);
    if (s.ok()) continue;  // the rename happened; only the done record was lost
    if (s.code() == Code::kDataLoss) store_->Delete(id);
    OBJSTORE_LOG(Warn, "chunkserver") << "put of " << text << " did not finish before the restart: " << s.ToString();
  }
  unfinished_.clear();
}

void ChunkService::RegisterWith(rpc::RpcServer* server) {
  server->Register(chunk_methods::kPut, [this](const std::string& req, std::string* resp) { return Put(req, resp); });
  server->Register(chunk_methods::kGet, [this](const std::string& req, std::string* resp) { return Get(req, resp); });
  server->Register(chunk_methods::kStat, [this](const std::string& req, std::string* resp) { return Stat(req, resp); });
  server->Register(chunk_methods::kDelete,
                   [this](const std::string& req, std::string* resp) { return Delete(req, resp); });
  server->Register(chunk_methods::kList, [this](const std::string& req, std::string* resp) { return List(req, resp); });
  server->Register(chunk_methods::kPing, [this](const std::string&, std::string* resp) {
    *resp = node_name_;
    return Status::Ok();
  });
}

Status ChunkService::Put(const std::string& request, std::string* response) {
  metrics::ScopedTimer timer(put_seconds_);
  ChunkId id;
  std::string_view data;
  if (!DecodePutRequest(request, &id, &data)) return Status::InvalidArgument("malformed PutChunk request");
  const uint32_t checksum = ReplicaWriter::Checksum(std::string(data));

  JournalRecord record{JournalOp::kPutBegin, id, data.size(), checksum};
  OBJSTORE_RETURN_IF_ERROR(journal_->Append(record, /*sync=*/true));
  Status s = store_->Put(id, data);
  if (!s.ok()) {
    OBJSTORE_LOG(Error, "chunkserver") << "storing " << id.ToString() << " failed: " << s.ToString();
    return s;
  }
  record.op = JournalOp::kPutDone;
  if (Status j = journal_->Append(record, /*sync=*/false); !j.ok()) {
    // The chunk is durable; a missing done record only costs a check at the next restart.
    OBJSTORE_LOG(Warn, "chunkserver") << "journal: " << j.ToString();
  }
  bytes_written_->Inc(data.size());
  OBJSTORE_LOG(Info, "chunkserver") << "stored " << id.ToString() << " (" << data.size() << " bytes, checksum "
                                    << Hex32(checksum) << ")";
  *response = id.ToString() + " " + Hex32(checksum);
  return Status::Ok();
}

Status ChunkService::Get(const std::string& request, std::string* response) {
  ChunkId id;
  if (!ParseChunkId(request, &id)) return Status::InvalidArgument("malformed chunk id \"" + request + "\"");
  Status s = store_->Get(id, response);
  if (s.code() == Code::kDataLoss) {
    corrupt_reads_->Inc();
    OBJSTORE_LOG(Error, "chunkserver") << "damaged chunk " << id.ToString() << ": " << s.message();
  }
  if (s.ok()) bytes_read_->Inc(response->size());
  return s;
}

Status ChunkService::Stat(const std::string& request, std::string* response) {
  ChunkId id;
  if (!ParseChunkId(request, &id)) return Status::InvalidArgument("malformed chunk id \"" + request + "\"");
  std::string data;
  OBJSTORE_RETURN_IF_ERROR(store_->Get(id, &data));
  ChunkStat stat;
  stat.size = data.size();
  stat.checksum = ReplicaWriter::Checksum(data);
  uint64_t size = 0;
  OBJSTORE_RETURN_IF_ERROR(store_->Stat(id, &size, &stat.mtime));
  *response = EncodeStat(stat);
  return Status::Ok();
}

Status ChunkService::Delete(const std::string& request, std::string* response) {
  ChunkId id;
  if (!ParseChunkId(request, &id)) return Status::InvalidArgument("malformed chunk id \"" + request + "\"");
  OBJSTORE_RETURN_IF_ERROR(journal_->Append(JournalRecord{JournalOp::kDelete, id, 0, 0}, /*sync=*/false));
  OBJSTORE_RETURN_IF_ERROR(store_->Delete(id));
  response->clear();
  return Status::Ok();
}

Status ChunkService::List(const std::string& request, std::string* response) {
  response->clear();
  size_t count = 0;
  Status s = store_->List(request, [&](const ChunkId& id) {
    *response += id.ToString();
    *response += '\n';
    ++count;
  });
  OBJSTORE_LOG(Debug, "chunkserver") << "listed " << count << " chunks with prefix \"" << request << "\"";
  return s;
}

}  // namespace objstore
