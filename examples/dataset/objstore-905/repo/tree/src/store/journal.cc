#include "store/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/logging.h"
#include "common/record_io.h"
#include "rpc/wire.h"

namespace objstore {

namespace {

constexpr uint32_t kMaxRecord = 4096;

std::string EncodeBody(const JournalRecord& r) {
  rpc::WireWriter w;
  w.PutU8(static_cast<uint8_t>(r.op));
  w.PutString(r.id.object);
  w.PutU32(r.id.index);
  w.PutU64(r.size);
  w.PutU32(r.checksum);
  return w.Release();
}

bool DecodeBody(std::string_view body, JournalRecord* r) {
  rpc::WireReader in(body);
  uint8_t op = in.GetU8();
  r->id.object = in.GetString();
  r->id.index = in.GetU32();
  r->size = in.GetU64();
  r->checksum = in.GetU32();
  if (!in.done() || op < 1 || op > 3) return false;
  r->op = static_cast<JournalOp>(op);
  return true;
}

}  // namespace

Journal::Journal(JournalOptions options) : options_(std::move(options)) {
  metrics::Registry* reg = options_.metrics ? options_.metrics : metrics::DefaultRegistry();
  fsync_seconds_ = reg->GetHistogram("chunkserver_journal_fsync_seconds", "Journal fsync latency",
                                     metrics::LatencyBounds());
  truncations_ = reg->GetCounter("chunkserver_journal_truncations_total", "Times the journal was emptied");
}

Journal::~Journal() {
  if (fd_ >= 0) ::close(fd_);
}

Status Journal::Open(const std::function<void(const JournalRecord&)>& fn) {
  fd_ = ::open(options_.path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) return Status::Internal("open " + options_.path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return Status::Internal("fstat " + options_.path + ": " + std::strerror(errno));
  std::string buf(static_cast<size_t>(st.st_size), '\0');
  if (!buf.empty() && ::pread(fd_, buf.data(), buf.size(), 0) != static_cast<ssize_t>(buf.size())) {
    return Status::Internal("read " + options_.path + ": short read");
  }
  int replayed = 0;
  size_t off = ScanRecords(buf, kMaxRecord, [&](std::string_view body) {
    JournalRecord record;
    if (!DecodeBody(body, &record)) return false;
    fn(record);
    ++replayed;
    return true;
  });
  if (off != buf.size()) {
    OBJSTORE_LOG(Warn, "journal") << options_.path << ": cutting " << (buf.size() - off)
                                  << " bytes of a torn record at offset " << off;
    if (::ftruncate(fd_, static_cast<off_t>(off)) != 0) {
      return Status::Internal("truncate " + options_.path + ": " + std::strerror(errno));
    }
  }
  ::lseek(fd_, static_cast<off_t>(off), SEEK_SET);
  size_ = off;
  OBJSTORE_LOG(Info, "journal") << "replayed " << replayed << " records from " << options_.path;
  return Status::Ok();
}

Status Journal::Append(const JournalRecord& record, bool sync) {
  std::string frame = FrameRecord(EncodeBody(record));
  std::lock_guard<std::mutex> lock(mu_);
  OBJSTORE_RETURN_IF_ERROR(AppendLocked(frame));
  if (record.op == JournalOp::kPutBegin) ++in_flight_;
  if (record.op == JournalOp::kPutDone && in_flight_ > 0) --in_flight_;
  if (sync) OBJSTORE_RETURN_IF_ERROR(SyncLocked());
  MaybeTruncateLocked();
  return Status::Ok();
}

Status Journal::AppendLocked(const std::string& frame) {
  size_t off = 0;
  while (off < frame.size()) {
    ssize_t n = ::write(fd_, frame.data() + off, frame.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Internal("append to " + options_.path + ": " + std::strerror(errno));
    }
    off += static_cast<size_t>(n);
  }
  size_ += frame.size();
  return Status::Ok();
}

Status Journal::SyncLocked() {
  auto start = std::chrono::steady_clock::now();
  int rc = ::fdatasync(fd_);
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  fsync_seconds_->Observe(static_cast<double>(took.count()) / 1000.0);
  if (took >= options_.slow_fsync) {
    OBJSTORE_LOG(Warn, "journal") << "fsync of " << options_.path << " took " << took.count() << " ms";
  }
  if (rc != 0) return Status::Internal("fsync " + options_.path + ": " + std::strerror(errno));
  return Status::Ok();
}

// With no put in flight every journaled put has its durable file, so the records carry no
// information a restart would need.
void Journal::MaybeTruncateLocked() {
  if (size_ < options_.max_bytes || in_flight_ > 0) return;
  if (::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) != 0) {
    OBJSTORE_LOG(Error, "journal") << "cannot truncate " << options_.path << ": " << std::strerror(errno);
    return;
  }
  size_ = 0;
  truncations_->Inc();
}

uint64_t Journal::size_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return size_;
}

int Journal::puts_in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_flight_;
}

}  // namespace objstore
