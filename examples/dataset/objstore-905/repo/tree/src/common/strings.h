#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace objstore {

// Splits on `sep`, trimming spaces around each piece; empty pieces are dropped.
std::vector<std::string> SplitList(std::string_view text, char sep);

std::string_view TrimSpace(std::string_view text);

// Decimal, no sign, no suffix; false on overflow or trailing characters.
bool ParseUint64(std::string_view text, uint64_t* out);

// "800ms", "2s", "1m", "1h"; a bare number is milliseconds.
bool ParseDuration(std::string_view text, std::chrono::milliseconds* out);

// "65536", "64KiB", "4MiB", "1GiB" (also "k", "m", "g" as binary units).
bool ParseByteSize(std::string_view text, uint64_t* out);

// Eight lower-case hex digits, the form checksums take in logs and acks.
std::string Hex32(uint32_t v);

// "host:port" with a numeric port; IPv6 hosts in brackets ("[::1]:7100").
bool SplitHostPort(std::string_view endpoint, std::string* host, uint16_t* port);

}  // namespace objstore
