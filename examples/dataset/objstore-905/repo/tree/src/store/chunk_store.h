#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "store/chunk_protocol.h"

namespace objstore {

struct ChunkStoreOptions {
  std::string root;
  // fsync each chunk file and its directory before Put returns. Only tests turn it off.
  bool sync = true;
};

// Chunk files on a storage node's data disk: <root>/<first two characters of the object>/
// <object>.<index>. A file is a 16-byte header (magic "OSCK", version, data length, masked
// CRC-32C of the data) and the data. Puts write a temporary file and rename it, so a reader
// sees the old chunk or the new one, never a mix.
class ChunkStore {
 public:
  explicit ChunkStore(ChunkStoreOptions options) : options_(std::move(options)) {}

  // Creates the root if needed and removes temporary files a crash left behind.
  Status Open();

  Status Put(const ChunkId& id, std::string_view data);
  // DATA_LOSS when the file's CRC does not match its data, NOT_FOUND when absent.
  Status Get(const ChunkId& id, std::string* data) const;
  Status Stat(const ChunkId& id, uint64_t* size, int64_t* mtime) const;
  Status Delete(const ChunkId& id);

  // Calls fn for every chunk whose object starts with `prefix`, in no particular order.
  Status List(std::string_view prefix, const std::function<void(const ChunkId&)>& fn) const;

  std::string PathOf(const ChunkId& id) const;

 private:
  std::string DirOf(const std::string& object) const;

  ChunkStoreOptions options_;
};

}  // namespace objstore
