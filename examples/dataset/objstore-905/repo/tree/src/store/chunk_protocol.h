#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/replica_writer.h"

namespace objstore {

// Payloads of the storage-node methods. They predate rpc::WireWriter and stay text so they
// can be read in packet captures:
//   PutChunk     request "<object>:<index>\n<data>"   response "<object>:<index> <checksum hex>"
//   GetChunk     request "<object>:<index>"           response the chunk's bytes
//   StatChunk    request "<object>:<index>"           response "<size> <checksum hex> <mtime unix s>"
//   DeleteChunk  request "<object>:<index>"           response ""
//   ListChunks   request "<object prefix>"            response one chunk id per line
//   Ping         request ""                           response the node name
// The checksum is ReplicaWriter::Checksum of the chunk's bytes.
namespace chunk_methods {
inline constexpr const char* kPut = "PutChunk";
inline constexpr const char* kGet = "GetChunk";
inline constexpr const char* kStat = "StatChunk";
inline constexpr const char* kDelete = "DeleteChunk";
inline constexpr const char* kList = "ListChunks";
inline constexpr const char* kPing = "Ping";
inline constexpr const char* kMetrics = "Metrics";
}  // namespace chunk_methods

// "<object>:<index>": the object part is non-empty, has no ':' or '/', the index is decimal.
bool ParseChunkId(std::string_view text, ChunkId* out);

// Splits a PutChunk request into its chunk id and data.
bool DecodePutRequest(std::string_view payload, ChunkId* id, std::string_view* data);

struct ChunkStat {
  uint64_t size = 0;
  uint32_t checksum = 0;
  int64_t mtime = 0;
};

std::string EncodeStat(const ChunkStat& stat);
bool DecodeStat(std::string_view text, ChunkStat* out);

}  // namespace objstore
