#include "pagestore.h"

/* Bitwise CRC-32C (Castagnoli); slow but dependency free. */
uint32_t ps_crc32c(const void *data, size_t len) {
    const unsigned char *p = data;
    uint32_t crc = 0xffffffffu;
    while (len--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1u)));
    }
    return ~crc;
}
