#include "store/chunk_protocol.h"

#include <cinttypes>
#include <cstdio>

#include "common/strings.h"

namespace objstore {

bool ParseChunkId(std::string_view text, ChunkId* out) {
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  std::string_view object = text.substr(0, colon);
  if (object.find_first_of(":/") != std::string_view::npos || object == "." || object == "..") return false;
  uint64_t index = 0;
  if (!ParseUint64(text.substr(colon + 1), &index) || index > UINT32_MAX) return false;
  out->object.assign(object);
  out->index = static_cast<uint32_t>(index);
  return true;
}

bool DecodePutRequest(std::string_view payload, ChunkId* id, std::string_view* data) {
  size_t nl = payload.find('\n');
  if (nl == std::string_view::npos) return false;
  if (!ParseChunkId(payload.substr(0, nl), id)) return false;
  *data = payload.substr(nl + 1);
  return true;
}

std::string EncodeStat(const ChunkStat& stat) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%" PRIu64 " %08x %" PRId64, stat.size, stat.checksum, stat.mtime);
  return buf;
}

bool DecodeStat(std::string_view text, ChunkStat* out) {
  std::string copy(text);
  unsigned int checksum = 0;
  if (std::sscanf(copy.c_str(), "%" SCNu64 " %x %" SCNd64, &out->size, &checksum, &out->mtime) != 3) return false;
  out->checksum = checksum;
  return true;
}

}  // namespace objstore
