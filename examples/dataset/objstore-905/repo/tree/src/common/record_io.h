#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace objstore {

// Framing of append-only record files (the chunk server's journal, the gateway's metadata
// log): length (4, big-endian) | masked CRC-32C of the body (4) | body.
std::string FrameRecord(std::string_view body);

// Calls fn for each intact record of buf in order and returns the length of the intact
// prefix. Scanning stops at the first record that is cut short, longer than max_body, fails
// its CRC, or that fn rejects by returning false: a torn tail after a crash.
size_t ScanRecords(std::string_view buf, size_t max_body, const std::function<bool(std::string_view body)>& fn);

// Reads a whole file; NOT_FOUND when it does not exist.
Status ReadFileToString(const std::string& path, std::string* out);

// Writes a file through a temporary name, fsyncs it and renames it into place.
Status WriteFileAtomic(const std::string& path, std::string_view data);

}  // namespace objstore
