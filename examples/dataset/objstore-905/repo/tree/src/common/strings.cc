#include "common/strings.h"

#include <cctype>
#include <cstdio>
#include <limits>

namespace objstore {

std::string_view TrimSpace(std::string_view text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

std::vector<std::string> SplitList(std::string_view text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t next = text.find(sep, start);
    if (next == std::string_view::npos) next = text.size();
    std::string_view piece = TrimSpace(text.substr(start, next - start));
    if (!piece.empty()) out.emplace_back(piece);
    start = next + 1;
  }
  return out;
}

bool ParseUint64(std::string_view text, uint64_t* out) {
  if (text.empty()) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10) return false;
    v = v * 10 + digit;
  }
  *out = v;
  return true;
}

namespace {

// Splits "64KiB" into 64 and "KiB".
bool SplitNumber(std::string_view text, uint64_t* number, std::string_view* unit) {
  text = TrimSpace(text);
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) return false;
  *unit = TrimSpace(text.substr(digits));
  return ParseUint64(text.substr(0, digits), number);
}

bool MultiplyChecked(uint64_t v, uint64_t factor, uint64_t* out) {
  if (factor != 0 && v > std::numeric_limits<uint64_t>::max() / factor) return false;
  *out = v * factor;
  return true;
}

}  // namespace

bool ParseDuration(std::string_view text, std::chrono::milliseconds* out) {
  uint64_t n = 0;
  std::string_view unit;
  if (!SplitNumber(text, &n, &unit)) return false;
  uint64_t factor;
  if (unit.empty() || unit == "ms") {
    factor = 1;
  } else if (unit == "s") {
    factor = 1000;
  } else if (unit == "m") {
    factor = 60 * 1000;
  } else if (unit == "h") {
    factor = 60 * 60 * 1000;
  } else {
    return false;
  }
  uint64_t ms;
  if (!MultiplyChecked(n, factor, &ms)) return false;
  *out = std::chrono::milliseconds(static_cast<int64_t>(ms));
  return true;
}

bool ParseByteSize(std::string_view text, uint64_t* out) {
  uint64_t n = 0;
  std::string_view unit;
  if (!SplitNumber(text, &n, &unit)) return false;
  uint64_t factor;
  if (unit.empty() || unit == "B") {
    factor = 1;
  } else if (unit == "KiB" || unit == "k" || unit == "K") {
    factor = 1ull << 10;
  } else if (unit == "MiB" || unit == "m" || unit == "M") {
    factor = 1ull << 20;
  } else if (unit == "GiB" || unit == "g" || unit == "G") {
    factor = 1ull << 30;
  } else {
    return false;
  }
  return MultiplyChecked(n, factor, out);
}

std::string Hex32(uint32_t v) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

bool SplitHostPort(std::string_view endpoint, std::string* host, uint16_t* port) {
  size_t colon = endpoint.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  std::string_view h = endpoint.substr(0, colon);
  if (h.front() == '[') {
    if (h.size() < 3 || h.back() != ']') return false;
    h = h.substr(1, h.size() - 2);
  }
  uint64_t p = 0;
  if (!ParseUint64(endpoint.substr(colon + 1), &p) || p == 0 || p > 65535) return false;
  host->assign(h);
  *port = static_cast<uint16_t>(p);
  return true;
}

}  // namespace objstore
