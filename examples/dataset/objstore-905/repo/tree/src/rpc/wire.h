#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace objstore::rpc {

// Builds a message payload: fixed-width big-endian integers and length-prefixed strings.
// Storage-node methods keep their older text payloads; the gateway's methods use this.
class WireWriter {
 public:
  void PutU8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void PutU32(uint32_t v);
  void PutU64(uint64_t v);
  void PutBool(bool v) { PutU8(v ? 1 : 0); }
  // A u32 length, then the bytes.
  void PutString(std::string_view s);

  const std::string& data() const { return out_; }
  std::string Release() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads what WireWriter wrote. A read past the end or a length larger than what is left
// marks the reader failed; every later read returns zero values, so callers check ok() once
// at the end.
class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}

  uint8_t GetU8();
  uint32_t GetU32();
  uint64_t GetU64();
  bool GetBool() { return GetU8() != 0; }
  std::string GetString();

  bool ok() const { return ok_; }
  // True when the whole payload was consumed without error.
  bool done() const { return ok_ && pos_ == data_.size(); }

 private:
  bool Take(size_t n, const char** p);

  std::string_view data_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace objstore::rpc
