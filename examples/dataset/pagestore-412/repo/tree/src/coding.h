/* Byte encodings shared by the table, log and manifest formats, growable buffers, and the
 * internal key format. Fixed-width integers are big-endian, as in the table footer. */
#ifndef PS_CODING_H
#define PS_CODING_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *data;
    size_t len;
} ps_slice_t;

static inline ps_slice_t ps_slice(const void *data, size_t len) {
    ps_slice_t s = {(const char *)data, len};
    return s;
}

/* memcmp order; a proper prefix sorts first. */
int ps_slice_cmp(ps_slice_t a, ps_slice_t b);

/* A growable byte buffer. A zeroed struct is an empty buffer. */
typedef struct {
    char *data;
    size_t len;
    size_t cap;
} ps_buf_t;

int ps_buf_reserve(ps_buf_t *b, size_t extra);
int ps_buf_append(ps_buf_t *b, const void *data, size_t len);
int ps_buf_put_u32(ps_buf_t *b, uint32_t v);
int ps_buf_put_u64(ps_buf_t *b, uint64_t v);
int ps_buf_put_varint(ps_buf_t *b, uint64_t v);
/* varint length, then the bytes */
int ps_buf_put_lp(ps_buf_t *b, ps_slice_t s);
int ps_buf_set(ps_buf_t *b, ps_slice_t s);
void ps_buf_free(ps_buf_t *b);
static inline ps_slice_t ps_buf_slice(const ps_buf_t *b) { return ps_slice(b->data, b->len); }

void ps_put_u32(unsigned char *p, uint32_t v);
void ps_put_u64(unsigned char *p, uint64_t v);
uint32_t ps_get_u32(const unsigned char *p);
uint64_t ps_get_u64(const unsigned char *p);

/* Decoders over [*p, limit): advance *p and return 0, or return -EBADMSG on a short or
 * overlong input without moving. */
int ps_get_varint(const char **p, const char *limit, uint64_t *v);
int ps_get_lp(const char **p, const char *limit, ps_slice_t *s);

/*
 * Internal keys: the user key followed by an 8-byte trailer, (sequence << 8) | type.
 * They sort by user key ascending, then by sequence descending, so the newest version of a
 * key comes first.
 */
enum { PS_TYPE_DELETION = 0, PS_TYPE_VALUE = 1 };
#define PS_MAX_SEQUENCE ((UINT64_C(1) << 56) - 1)

int ps_ikey_build(ps_buf_t *out, ps_slice_t user_key, uint64_t seq, int type);
ps_slice_t ps_ikey_user(ps_slice_t ikey);
uint64_t ps_ikey_seq(ps_slice_t ikey);
int ps_ikey_type(ps_slice_t ikey);
int ps_ikey_cmp(ps_slice_t a, ps_slice_t b);

#endif
