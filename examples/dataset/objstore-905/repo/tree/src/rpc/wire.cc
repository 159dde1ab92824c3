#include "rpc/wire.h"

namespace objstore::rpc {

void WireWriter::PutU32(uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out_.push_back(static_cast<char>((v >> shift) & 0xff));
}

void WireWriter::PutU64(uint64_t v) {
  PutU32(static_cast<uint32_t>(v >> 32));
  PutU32(static_cast<uint32_t>(v));
}

void WireWriter::PutString(std::string_view s) {
  PutU32(static_cast<uint32_t>(s.size()));
  out_.append(s.data(), s.size());
}

bool WireReader::Take(size_t n, const char** p) {
  if (!ok_ || data_.size() - pos_ < n) {
    ok_ = false;
    return false;
  }
  *p = data_.data() + pos_;
  pos_ += n;
  return true;
}

uint8_t WireReader::GetU8() {
  const char* p;
  if (!Take(1, &p)) return 0;
  return static_cast<uint8_t>(*p);
}

uint32_t WireReader::GetU32() {
  const char* p;
  if (!Take(4, &p)) return 0;
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

uint64_t WireReader::GetU64() {
  uint64_t hi = GetU32();
  uint64_t lo = GetU32();
  return (hi << 32) | lo;
}

std::string WireReader::GetString() {
  uint32_t len = GetU32();
  const char* p;
  if (!Take(len, &p)) return {};
  return std::string(p, len);
}

}  // namespace objstore::rpc
