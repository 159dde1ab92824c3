#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "common/status.h"
#include "metrics/metrics.h"
#include "store/replica_writer.h"

namespace objstore {

// What the chunk server is about to do or has done to a chunk.
enum class JournalOp : uint8_t {
  kPutBegin = 1,   // synced before the chunk file is written
  kPutDone = 2,    // the chunk file is durable; not synced on its own
  kDelete = 3,
};

struct JournalRecord {
  JournalOp op = JournalOp::kPutBegin;
  ChunkId id;
  uint64_t size = 0;
  uint32_t checksum = 0;
};

struct JournalOptions {
  std::string path;
  std::chrono::milliseconds slow_fsync{500};
  // When the file grows past this and no put is in flight, it is truncated.
  uint64_t max_bytes = 256ull << 20;
  metrics::Registry* metrics = nullptr;
};

// The chunk server's intent log. A put is journaled (and synced) before its file is written,
// so after a crash Replay() finds the puts that may have left a partial file. Records are
// framed as length (4) | masked CRC-32C (4) | op (1) | body, all big-endian.
class Journal {
 public:
  explicit Journal(JournalOptions options);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Opens (creating) the file. Replays it first: fn sees every intact record in order; a
  // torn record at the tail ends the replay and is cut off.
  Status Open(const std::function<void(const JournalRecord&)>& fn);

  Status Append(const JournalRecord& record, bool sync);

  uint64_t size_bytes() const;
  int puts_in_flight() const;

 private:
  Status AppendLocked(const std::string& frame);
  Status SyncLocked();
  void MaybeTruncateLocked();

  JournalOptions options_;
  int fd_ = -1;
  mutable std::mutex mu_;
  uint64_t size_ = 0;
  int in_flight_ = 0;
  metrics::Histogram* fsync_seconds_ = nullptr;
  metrics::Counter* truncations_ = nullptr;
};

}  // namespace objstore
