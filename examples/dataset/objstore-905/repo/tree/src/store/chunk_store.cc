#include "store/chunk_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>

#include "common/crc32c.h"
#include "common/logging.h"

namespace objstore {

namespace {

constexpr char kMagic[4] = {'O', 'S', 'C', 'K'};
constexpr uint8_t kVersion = 1;
constexpr size_t kHeaderSize = 16;
constexpr const char* kTempPrefix = ".tmp.";

std::atomic<uint64_t> temp_counter{0};

void PutU32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (24 - 8 * i));
}

uint32_t GetU32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

Status Errno(const std::string& what) { return Status::Internal(what + ": " + std::strerror(errno)); }

Status WriteAll(int fd, const char* p, size_t n, const std::string& path) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return Errno("write " + path);
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return Status::Ok();
}

Status FsyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("open " + dir);
  int rc = ::fsync(fd);
  ::close(fd);
  return rc == 0 ? Status::Ok() : Errno("fsync " + dir);
}

Status MakeDir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return Errno("mkdir " + dir);
  return Status::Ok();
}

struct DirCloser {
  void operator()(DIR* d) const { ::closedir(d); }
};

// "<object>.<index>" back into a chunk id; false for anything else in the directory.
bool ParseFileName(const std::string& name, ChunkId* id) {
  size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0) return false;
  return ParseChunkId(name.substr(0, dot) + ":" + name.substr(dot + 1), id);
}

}  // namespace

std::string ChunkStore::DirOf(const std::string& object) const {
  return options_.root + "/" + object.substr(0, std::min<size_t>(2, object.size()));
}

std::string ChunkStore::PathOf(const ChunkId& id) const {
  return DirOf(id.object) + "/" + id.object + "." + std::to_string(id.index);
}

Status ChunkStore::Open() {
  OBJSTORE_RETURN_IF_ERROR(MakeDir(options_.root));
  std::unique_ptr<DIR, DirCloser> root(::opendir(options_.root.c_str()));
  if (!root) return Errno("opendir " + options_.root);
  int removed = 0;
  while (dirent* shard = ::readdir(root.get())) {
    if (shard->d_name[0] == '.') continue;
    std::string shard_dir = options_.root + "/" + shard->d_name;
    std::unique_ptr<DIR, DirCloser> d(::opendir(shard_dir.c_str()));
    if (!d) continue;
    while (dirent* e = ::readdir(d.get())) {
      if (std::strncmp(e->d_name, kTempPrefix, std::strlen(kTempPrefix)) != 0) continue;
      if (::unlink((shard_dir + "/" + e->d_name).c_str()) == 0) ++removed;
    }
  }
  if (removed > 0) OBJSTORE_LOG(Info, "chunkstore") << "removed " << removed << " temporary files of interrupted puts";
  return Status::Ok();
}

Status ChunkStore::Put(const ChunkId& id, std::string_view data) {
  const std::string dir = DirOf(id.object);
  OBJSTORE_RETURN_IF_ERROR(MakeDir(dir));
  const std::string final_path = PathOf(id);
  const std::string temp_path = dir + "/" + kTempPrefix + id.object + "." + std::to_string(id.index) + "." +
                                std::to_string(temp_counter.fetch_add(1));

  char header[kHeaderSize] = {};
  std::memcpy(header, kMagic, 4);
  header[4] = static_cast<char>(kVersion);
  PutU32(header + 8, static_cast<uint32_t>(data.size()));
  PutU32(header + 12, MaskCrc(Crc32c(data)));

  int fd = ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("create " + temp_path);
  Status s = WriteAll(fd, header, sizeof header, temp_path);
  if (s.ok()) s = WriteAll(fd, data.data(), data.size(), temp_path);
  if (s.ok() && options_.sync && ::fsync(fd) != 0) s = Errno("fsync " + temp_path);
  ::close(fd);
  if (s.ok() && ::rename(temp_path.c_str(), final_path.c_str()) != 0) s = Errno("rename " + temp_path);
  if (!s.ok()) {
    ::unlink(temp_path.c_str());
    return s;
  }
  return options_.sync ? FsyncDir(dir) : Status::Ok();
}

Status ChunkStore::Get(const ChunkId& id, std::string* data) const {
  const std::string path = PathOf(id);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status::NotFound("chunk " + id.ToString());
    return Errno("open " + path);
  }
  struct stat st {};
  std::string buf;
  Status s;
  if (::fstat(fd, &st) != 0) {
    s = Errno("fstat " + path);
  } else {
    buf.resize(static_cast<size_t>(st.st_size));
    size_t off = 0;
    while (s.ok() && off < buf.size()) {
      ssize_t n = ::pread(fd, buf.data() + off, buf.size() - off, static_cast<off_t>(off));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) s = n == 0 ? Status::DataLoss(path + ": short read") : Errno("read " + path);
      else off += static_cast<size_t>(n);
    }
  }
  ::close(fd);
  OBJSTORE_RETURN_IF_ERROR(s);
  if (buf.size() < kHeaderSize || std::memcmp(buf.data(), kMagic, 4) != 0) {
    return Status::DataLoss(path + ": not a chunk file");
  }
  uint32_t len = GetU32(buf.data() + 8);
  if (len != buf.size() - kHeaderSize) return Status::DataLoss(path + ": length mismatch");
  std::string_view body(buf.data() + kHeaderSize, len);
  if (UnmaskCrc(GetU32(buf.data() + 12)) != Crc32c(body)) return Status::DataLoss(path + ": crc mismatch");
  data->assign(body);
  return Status::Ok();
}

Status ChunkStore::Stat(const ChunkId& id, uint64_t* size, int64_t* mtime) const {
  struct stat st {};
  const std::string path = PathOf(id);
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::NotFound("chunk " + id.ToString());
    return Errno("stat " + path);
  }
  if (static_cast<size_t>(st.st_size) < kHeaderSize) return Status::DataLoss(path + ": truncated");
  *size = static_cast<uint64_t>(st.st_size) - kHeaderSize;
  *mtime = st.st_mtim.tv_sec;
  return Status::Ok();
}

Status ChunkStore::Delete(const ChunkId& id) {
  const std::string path = PathOf(id);
  if (::unlink(path.c_str()) != 0) {
    if (errno == ENOENT) return Status::NotFound("chunk " + id.ToString());
    return Errno("unlink " + path);
  }
  return options_.sync ? FsyncDir(DirOf(id.object)) : Status::Ok();
}

Status ChunkStore::List(std::string_view prefix, const std::function<void(const ChunkId&)>& fn) const {
  std::unique_ptr<DIR, DirCloser> root(::opendir(options_.root.c_str()));
  if (!root) return Errno("opendir " + options_.root);
  while (dirent* shard = ::readdir(root.get())) {
    if (shard->d_name[0] == '.') continue;
    // Shards are named by the first two characters, so most can be skipped by name.
    std::string_view shard_name(shard->d_name);
    size_t n = std::min(prefix.size(), shard_name.size());
    if (prefix.substr(0, n) != shard_name.substr(0, n)) continue;
    std::unique_ptr<DIR, DirCloser> d(::opendir((options_.root + "/" + shard->d_name).c_str()));
    if (!d) continue;
    while (dirent* e = ::readdir(d.get())) {
      ChunkId id;
      if (e->d_name[0] == '.' || !ParseFileName(e->d_name, &id)) continue;
      if (id.object.compare(0, prefix.size(), prefix) == 0) fn(id);
    }
  }
  return Status::Ok();
}

}  // namespace objstore
