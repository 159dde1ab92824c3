#include "store/replica_writer.h"

#include <cstdio>
#include <iostream>

namespace objstore {

uint32_t ReplicaWriter::Checksum(const std::string& data) {
  // CRC32C would be used in production; FNV-1a keeps this file self-contained.
  uint32_t h = 2166136261u;
  for (unsigned char c : data) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

namespace {

std::string EncodePut(const ChunkId& id, const std::string& data) {
  return id.ToString() + '\n' + data;
}

// The ack is "<chunk id> <checksum hex>".
bool ParseAck(const std::string& ack, std::string* chunk, uint32_t* checksum) {
  auto space = ack.find(' ');
  if (space == std::string::npos) return false;
  *chunk = ack.substr(0, space);
  return std::sscanf(ack.c_str() + space + 1, "%x", checksum) == 1;
}

void Log(const char* level, const std::string& msg) {
  std::cerr << level << " replica_writer: " << msg << std::endl;
}

}  // namespace

Status ReplicaWriter::WriteChunk(const ChunkId& id, const std::string& data, const std::vector<std::string>& replicas) {
  const uint32_t want = Checksum(data);
  int acked = 0;
  std::string errors;
  for (const auto& replica : replicas) {
    std::string ack;
    rpc::CallOptions opts;
    opts.timeout = std::chrono::milliseconds(800);
    opts.max_retries = 1;
    Status s = client_->Call(replica, "PutChunk", EncodePut(id, data), &ack, opts);
    if (!s.ok()) {
      Log("WARN", "PutChunk " + id.ToString() + " to " + replica + " failed: " + s.ToString());
      errors += replica + ": " + s.ToString() + "; ";
      continue;
    }
    std::string acked_chunk;
    uint32_t got = 0;
    if (!ParseAck(ack, &acked_chunk, &got)) {
      Log("ERROR", "unparsable ack from " + replica + ": " + ack);
      continue;
    }
    if (got != want) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "checksum mismatch for chunk %s on %s: want %08x, replica stored %08x (ack for %s)",
                    id.ToString().c_str(), replica.c_str(), want, got, acked_chunk.c_str());
      Log("ERROR", buf);
      errors += replica + ": checksum mismatch; ";
      continue;
    }
    ++acked;
  }
  if (acked < write_quorum_) {
    return Status::Unavailable("chunk " + id.ToString() + ": " + std::to_string(acked) + "/" +
                               std::to_string(replicas.size()) + " replicas acked: " + errors);
  }
  return Status::Ok();
}

}  // namespace objstore
