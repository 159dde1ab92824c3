#include "write_batch.h"

#include <errno.h>
#include <stdlib.h>

ps_batch_t *ps_batch_new(void) { return calloc(1, sizeof(ps_batch_t)); }

void ps_batch_free(ps_batch_t *b) {
    if (!b) return;
    ps_buf_free(&b->entries);
    free(b);
}

void ps_batch_clear(ps_batch_t *b) {
    b->entries.len = 0;
    b->count = 0;
}

int ps_batch_put(ps_batch_t *b, const void *key, size_t klen, const void *val, size_t vlen) {
    unsigned char type = PS_TYPE_VALUE;
    int rc = ps_buf_append(&b->entries, &type, 1);
    if (rc == 0) rc = ps_buf_put_lp(&b->entries, ps_slice(key, klen));
    if (rc == 0) rc = ps_buf_put_lp(&b->entries, ps_slice(val, vlen));
    if (rc == 0) b->count++;
    return rc;
}

int ps_batch_delete(ps_batch_t *b, const void *key, size_t klen) {
    unsigned char type = PS_TYPE_DELETION;
    int rc = ps_buf_append(&b->entries, &type, 1);
    if (rc == 0) rc = ps_buf_put_lp(&b->entries, ps_slice(key, klen));
    if (rc == 0) b->count++;
    return rc;
}

int ps_batch_encode(const ps_batch_t *b, uint64_t first_seq, ps_buf_t *out) {
    out->len = 0;
    int rc = ps_buf_put_u64(out, first_seq);
    if (rc == 0) rc = ps_buf_put_u32(out, b->count);
    if (rc == 0) rc = ps_buf_append(out, b->entries.data, b->entries.len);
    return rc;
}

int ps_batch_replay(ps_slice_t record, ps_batch_fn fn, void *arg, uint64_t *last_seq) {
    if (record.len < 12) return -EBADMSG;
    uint64_t seq = ps_get_u64((const unsigned char *)record.data);
    uint32_t count = ps_get_u32((const unsigned char *)record.data + 8);
    const char *p = record.data + 12;
    const char *end = record.data + record.len;
    for (uint32_t i = 0; i < count; i++, seq++) {
        if (p >= end) return -EBADMSG;
        int type = (unsigned char)*p++;
        ps_slice_t key, value = ps_slice("", 0);
        if (ps_get_lp(&p, end, &key) != 0) return -EBADMSG;
        if (type == PS_TYPE_VALUE) {
            if (ps_get_lp(&p, end, &value) != 0) return -EBADMSG;
        } else if (type != PS_TYPE_DELETION) {
            return -EBADMSG;
        }
        int rc = fn(arg, seq, type, key, value);
        if (rc != 0) return rc;
        if (last_seq) *last_seq = seq;
    }
    return p == end ? 0 : -EBADMSG;
}
