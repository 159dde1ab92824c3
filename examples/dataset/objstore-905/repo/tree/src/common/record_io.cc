#include "common/record_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/crc32c.h"

namespace objstore {

namespace {

void PutBE32(std::string* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>((v >> shift) & 0xff));
}

uint32_t GetBE32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | u[3];
}

Status ErrnoStatus(const std::string& what) {
  if (errno == ENOENT) return Status::NotFound(what + ": " + std::strerror(errno));
  return Status::Internal(what + ": " + std::strerror(errno));
}

}  // namespace

std::string FrameRecord(std::string_view body) {
  std::string out;
  out.reserve(8 + body.size());
  PutBE32(&out, static_cast<uint32_t>(body.size()));
  PutBE32(&out, MaskCrc(Crc32c(body)));
  out.append(body);
  return out;
}

size_t ScanRecords(std::string_view buf, size_t max_body, const std::function<bool(std::string_view body)>& fn) {
  size_t off = 0;
  while (buf.size() - off >= 8) {
    uint32_t len = GetBE32(buf.data() + off);
    uint32_t crc = UnmaskCrc(GetBE32(buf.data() + off + 4));
    if (len > max_body || buf.size() - off - 8 < len) break;
    std::string_view body = buf.substr(off + 8, len);
    if (Crc32c(body) != crc || !fn(body)) break;
    off += 8 + len;
  }
  return off;
}

Status ReadFileToString(const std::string& path, std::string* out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open " + path);
  out->clear();
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status s = ErrnoStatus("read " + path);
      ::close(fd);
      return s;
    }
    if (n == 0) break;
    out->append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return Status::Ok();
}

Status WriteFileAtomic(const std::string& path, std::string_view data) {
  const std::string temp = path + ".tmp";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("create " + temp);
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status s = ErrnoStatus("write " + temp);
      ::close(fd);
      ::unlink(temp.c_str());
      return s;
    }
    off += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    Status s = ErrnoStatus("fsync " + temp);
    ::close(fd);
    return s;
  }
  ::close(fd);
  if (::rename(temp.c_str(), path.c_str()) != 0) return ErrnoStatus("rename " + temp);
  return Status::Ok();
}

}  // namespace objstore
