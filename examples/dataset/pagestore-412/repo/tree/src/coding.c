#include "coding.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ps_slice_cmp(ps_slice_t a, ps_slice_t b) {
    size_t n = a.len < b.len ? a.len : b.len;
    int r = n ? memcmp(a.data, b.data, n) : 0;
    if (r != 0) return r;
    return a.len < b.len ? -1 : a.len > b.len;
}

int ps_buf_reserve(ps_buf_t *b, size_t extra) {
    if (b->cap - b->len >= extra) return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap - b->len < extra) cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) return -ENOMEM;
    b->data = p;
    b->cap = cap;
    return 0;
}

int ps_buf_append(ps_buf_t *b, const void *data, size_t len) {
    int rc = ps_buf_reserve(b, len);
    if (rc != 0) return rc;
    if (len) memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}

int ps_buf_put_u32(ps_buf_t *b, uint32_t v) {
    unsigned char tmp[4];
    ps_put_u32(tmp, v);
    return ps_buf_append(b, tmp, sizeof tmp);
}

int ps_buf_put_u64(ps_buf_t *b, uint64_t v) {
    unsigned char tmp[8];
    ps_put_u64(tmp, v);
    return ps_buf_append(b, tmp, sizeof tmp);
}

int ps_buf_put_varint(ps_buf_t *b, uint64_t v) {
    unsigned char tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (unsigned char)v;
    return ps_buf_append(b, tmp, n);
}

int ps_buf_put_lp(ps_buf_t *b, ps_slice_t s) {
    int rc = ps_buf_put_varint(b, s.len);
    return rc ? rc : ps_buf_append(b, s.data, s.len);
}

int ps_buf_set(ps_buf_t *b, ps_slice_t s) {
    b->len = 0;
    return ps_buf_append(b, s.data, s.len);
}

void ps_buf_free(ps_buf_t *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void ps_put_u32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (24 - 8 * i));
}

void ps_put_u64(unsigned char *p, uint64_t v) {
    ps_put_u32(p, (uint32_t)(v >> 32));
    ps_put_u32(p + 4, (uint32_t)v);
}

uint32_t ps_get_u32(const unsigned char *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

uint64_t ps_get_u64(const unsigned char *p) { return ((uint64_t)ps_get_u32(p) << 32) | ps_get_u32(p + 4); }

int ps_get_varint(const char **p, const char *limit, uint64_t *v) {
    uint64_t result = 0;
    const char *q = *p;
    for (int shift = 0; shift <= 63 && q < limit; shift += 7) {
        uint64_t byte = (unsigned char)*q++;
        result |= (byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *v = result;
            *p = q;
            return 0;
        }
    }
    return -EBADMSG;
}

int ps_get_lp(const char **p, const char *limit, ps_slice_t *s) {
    const char *q = *p;
    uint64_t len;
    if (ps_get_varint(&q, limit, &len) != 0 || len > (uint64_t)(limit - q)) return -EBADMSG;
    *s = ps_slice(q, (size_t)len);
    *p = q + len;
    return 0;
}

int ps_ikey_build(ps_buf_t *out, ps_slice_t user_key, uint64_t seq, int type) {
    out->len = 0;
    int rc = ps_buf_append(out, user_key.data, user_key.len);
    return rc ? rc : ps_buf_put_u64(out, (seq << 8) | (uint64_t)type);
}

ps_slice_t ps_ikey_user(ps_slice_t ikey) { return ps_slice(ikey.data, ikey.len - 8); }

uint64_t ps_ikey_seq(ps_slice_t ikey) { return ps_get_u64((const unsigned char *)ikey.data + ikey.len - 8) >> 8; }

int ps_ikey_type(ps_slice_t ikey) { return (int)(ikey.data[ikey.len - 1] & 0xff); }

int ps_ikey_cmp(ps_slice_t a, ps_slice_t b) {
    int r = ps_slice_cmp(ps_ikey_user(a), ps_ikey_user(b));
    if (r != 0) return r;
    uint64_t sa = ps_get_u64((const unsigned char *)a.data + a.len - 8);
    uint64_t sb = ps_get_u64((const unsigned char *)b.data + b.len - 8);
    return sa > sb ? -1 : sa < sb;
}
