#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "metrics/metrics.h"
#include "rpc/rpc_client.h"
#include "store/replica_writer.h"

namespace objstore {

struct ReadOptions {
  std::chrono::milliseconds timeout{2000};
  int retries = 0;
  // Writes a verified copy back to replicas that answered NOT_FOUND or DATA_LOSS.
  bool repair = true;
};

// Reads a chunk from the first replica that returns bytes with the expected checksum, in
// placement order. Replicas that are unreachable, miss the chunk or return other bytes are
// skipped; each outcome is counted per replica.
class ReplicaReader {
 public:
  ReplicaReader(rpc::RpcClient* client, metrics::Registry* metrics);

  Status ReadChunk(const ChunkId& id, uint32_t want_checksum, const std::vector<std::string>& replicas,
                   const ReadOptions& options, std::string* data);

 private:
  void Repair(const ChunkId& id, const std::string& data, const std::vector<std::string>& targets);

  rpc::RpcClient* client_;
  metrics::Registry* metrics_;
  metrics::Counter* repairs_;
};

}  // namespace objstore
