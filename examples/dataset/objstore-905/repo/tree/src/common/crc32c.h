#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace objstore {

// CRC-32C (Castagnoli), as used for chunk files and journal records. `Extend` continues a
// checksum over more data: Crc32c(a + b) == Crc32cExtend(Crc32c(a), b).
uint32_t Crc32c(const void* data, size_t n);
uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t n);

inline uint32_t Crc32c(std::string_view data) { return Crc32c(data.data(), data.size()); }

// Masked form stored next to data that may itself contain CRCs (as LevelDB does), so that a
// checksum of a checksum does not degenerate.
inline uint32_t MaskCrc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }
inline uint32_t UnmaskCrc(uint32_t masked) {
  uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

}  // namespace objstore
