#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "rpc/rpc_client.h"

namespace objstore {

struct ChunkId {
  std::string object;
  uint32_t index = 0;
  std::string ToString() const { return object + ":" + std::to_string(index); }
};

// Writes a chunk to every replica of its placement group and checks each replica's
// acknowledgement, which carries the checksum the replica computed over what it stored.
class ReplicaWriter {
 public:
  ReplicaWriter(rpc::RpcClient* client, int write_quorum) : client_(client), write_quorum_(write_quorum) {}

  Status WriteChunk(const ChunkId& id, const std::string& data, const std::vector<std::string>& replicas);

  static uint32_t Checksum(const std::string& data);

 private:
  rpc::RpcClient* client_;
  int write_quorum_;
};

}  // namespace objstore
