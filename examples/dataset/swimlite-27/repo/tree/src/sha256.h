/* SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), for packet authentication. */
#ifndef SWIM_SHA256_H
#define SWIM_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SWIM_SHA256_LEN 32

typedef struct {
    uint32_t state[8];
    uint64_t bytes;
    unsigned char block[64];
    size_t used;
} swim_sha256_t;

void swim_sha256_init(swim_sha256_t *s);
void swim_sha256_update(swim_sha256_t *s, const void *data, size_t len);
void swim_sha256_final(swim_sha256_t *s, unsigned char out[SWIM_SHA256_LEN]);

void swim_hmac_sha256(const unsigned char *key, size_t key_len, const void *data, size_t len,
                      unsigned char out[SWIM_SHA256_LEN]);

#endif
