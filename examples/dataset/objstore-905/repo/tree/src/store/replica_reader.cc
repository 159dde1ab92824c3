#include "store/replica_reader.h"

#include "common/logging.h"
#include "common/strings.h"
#include "store/chunk_protocol.h"

namespace objstore {

ReplicaReader::ReplicaReader(rpc::RpcClient* client, metrics::Registry* metrics) : client_(client), metrics_(metrics) {
  repairs_ = metrics_->GetCounter("gateway_read_repairs_total", "Chunks written back to a replica after a read");
}

Status ReplicaReader::ReadChunk(const ChunkId& id, uint32_t want_checksum, const std::vector<std::string>& replicas,
                                const ReadOptions& options, std::string* data) {
  rpc::CallOptions call;
  call.timeout = options.timeout;
  call.max_retries = options.retries;
  std::vector<std::string> needs_repair;
  std::string errors;
  for (const auto& replica : replicas) {
    std::string got;
    Status s = client_->Call(replica, chunk_methods::kGet, id.ToString(), &got, call);
    std::string outcome = "ok";
    if (s.ok() && ReplicaWriter::Checksum(got) != want_checksum) {
      outcome = "mismatch";
      OBJSTORE_LOG(Error, "replica_reader") << "chunk " << id.ToString() << " from " << replica << " has checksum "
                                            << Hex32(ReplicaWriter::Checksum(got)) << ", metadata says "
                                            << Hex32(want_checksum);
      needs_repair.push_back(replica);
      errors += replica + ": checksum mismatch; ";
    } else if (!s.ok()) {
      outcome = "error";
      OBJSTORE_LOG(Warn, "replica_reader") << "GetChunk " << id.ToString() << " from " << replica
                                           << " failed: " << s.ToString();
      // The damaged file is gone after the chunk server's DATA_LOSS, so both mean "absent".
      if (s.message().find("NOT_FOUND") != std::string::npos || s.message().find("DATA_LOSS") != std::string::npos) {
        needs_repair.push_back(replica);
      }
      errors += replica + ": " + s.ToString() + "; ";
    }
    metrics_->GetCounter("gateway_chunk_reads_total", "Chunk reads by replica and outcome",
                         {{"replica", replica}, {"outcome", outcome}})
        ->Inc();
    if (outcome == "ok") {
      if (options.repair && !needs_repair.empty()) Repair(id, got, needs_repair);
      *data = std::move(got);
      return Status::Ok();
    }
  }
  return Status::DataLoss("chunk " + id.ToString() + ": no replica returned it intact: " + errors);
}

void ReplicaReader::Repair(const ChunkId& id, const std::string& data, const std::vector<std::string>& targets) {
  rpc::CallOptions call;
  call.timeout = std::chrono::milliseconds(2000);
  for (const auto& target : targets) {
    std::string ack;
    Status s = client_->Call(target, chunk_methods::kPut, id.ToString() + '\n' + data, &ack, call);
    if (s.ok()) {
      repairs_->Inc();
      OBJSTORE_LOG(Info, "replica_reader") << "repaired " << id.ToString() << " on " << target;
    } else {
      OBJSTORE_LOG(Warn, "replica_reader") << "repair of " << id.ToString() << " on " << target
                                           << " failed: " << s.ToString();
    }
  }
}

}  // namespace objstore
