#include "block.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pagestore.h"

void ps_block_builder_init(ps_block_builder_t *b, int restart_interval) {
    memset(b, 0, sizeof *b);
    b->restart_interval = restart_interval > 0 ? restart_interval : 16;
}

static int add_restart(ps_block_builder_t *b, uint32_t offset) {
    if (b->n_restarts == b->cap_restarts) {
        size_t cap = b->cap_restarts ? 2 * b->cap_restarts : 16;
        uint32_t *r = realloc(b->restarts, cap * sizeof *r);
        if (!r) return -ENOMEM;
        b->restarts = r;
        b->cap_restarts = cap;
    }
    b->restarts[b->n_restarts++] = offset;
    return 0;
}

int ps_block_builder_add(ps_block_builder_t *b, ps_slice_t key, ps_slice_t value) {
    size_t shared = 0;
    int rc = 0;
    if (b->n_entries == 0 || b->counter >= b->restart_interval) {
        rc = add_restart(b, (uint32_t)b->buf.len);
        b->counter = 0;
    } else {
        size_t max = key.len < b->last_key.len ? key.len : b->last_key.len;
        while (shared < max && key.data[shared] == b->last_key.data[shared]) shared++;
    }
    if (rc == 0) rc = ps_buf_put_varint(&b->buf, shared);
    if (rc == 0) rc = ps_buf_put_varint(&b->buf, key.len - shared);
    if (rc == 0) rc = ps_buf_put_varint(&b->buf, value.len);
    if (rc == 0) rc = ps_buf_append(&b->buf, key.data + shared, key.len - shared);
    if (rc == 0) rc = ps_buf_append(&b->buf, value.data, value.len);
    if (rc == 0) rc = ps_buf_set(&b->last_key, key);
    if (rc != 0) return rc;
    b->counter++;
    b->n_entries++;
    return 0;
}

size_t ps_block_builder_estimate(const ps_block_builder_t *b) {
    return b->buf.len + 4 * (b->n_restarts + 1) + PS_BLOCK_TRAILER;
}

int ps_block_builder_empty(const ps_block_builder_t *b) { return b->n_entries == 0; }

int ps_block_builder_finish(ps_block_builder_t *b, ps_slice_t *out) {
    int rc = 0;
    for (size_t i = 0; i < b->n_restarts && rc == 0; i++) rc = ps_buf_put_u32(&b->buf, b->restarts[i]);
    if (rc == 0) rc = ps_buf_put_u32(&b->buf, (uint32_t)b->n_restarts);
    if (rc == 0) rc = ps_buf_append(&b->buf, "\0", 1);
    if (rc == 0) rc = ps_buf_put_u32(&b->buf, ps_crc32c(b->buf.data, b->buf.len));
    if (rc != 0) return rc;
    b->finished = 1;
    *out = ps_buf_slice(&b->buf);
    return 0;
}

void ps_block_builder_reset(ps_block_builder_t *b) {
    b->buf.len = 0;
    b->last_key.len = 0;
    b->n_restarts = 0;
    b->counter = 0;
    b->n_entries = 0;
    b->finished = 0;
}

void ps_block_builder_free(ps_block_builder_t *b) {
    ps_buf_free(&b->buf);
    ps_buf_free(&b->last_key);
    free(b->restarts);
    memset(b, 0, sizeof *b);
}

int ps_block_parse(const char *raw, size_t len, ps_block_t *out) {
    if (len < 4 + PS_BLOCK_TRAILER) return -EBADMSG;
    size_t size = len - PS_BLOCK_TRAILER;
    if (raw[size] != 0) return -EBADMSG; /* unknown block type */
    if (ps_get_u32((const unsigned char *)raw + size + 1) != ps_crc32c(raw, size + 1)) return -EBADMSG;
    uint32_t n = ps_get_u32((const unsigned char *)raw + size - 4);
    if (n == 0 || n > (size - 4) / 4) return -EBADMSG;
    out->data = raw;
    out->size = size;
    out->n_restarts = n;
    out->restarts_offset = (uint32_t)(size - 4 - 4 * (size_t)n);
    return 0;
}

typedef struct {
    ps_iter_t base;
    ps_block_t block;
    ps_cmp_fn cmp;
    uint32_t current;  /* offset of the current entry; restarts_offset when invalid */
    uint32_t next_off; /* offset of the entry after it */
    ps_buf_t key;
    ps_slice_t value;
    int status;
    void (*on_destroy)(void *);
    void *arg;
} block_iter_t;

static uint32_t restart_point(const block_iter_t *it, uint32_t i) {
    return ps_get_u32((const unsigned char *)it->block.data + it->block.restarts_offset + 4 * (size_t)i);
}

/* Decodes the entry at next_off into key and value, using the current key for the shared
 * prefix. Returns 0 at the end of the entries. */
static int parse_next(block_iter_t *it) {
    const char *limit = it->block.data + it->block.restarts_offset;
    const char *p = it->block.data + it->next_off;
    it->current = it->next_off;
    if (p >= limit) {
        it->current = it->block.restarts_offset;
        return 0;
    }
    uint64_t shared, unshared, vlen;
    if (ps_get_varint(&p, limit, &shared) || ps_get_varint(&p, limit, &unshared) ||
        ps_get_varint(&p, limit, &vlen) || shared > it->key.len || unshared + vlen > (uint64_t)(limit - p)) {
        it->status = -EBADMSG;
        it->current = it->block.restarts_offset;
        return 0;
    }
    it->key.len = (size_t)shared;
    if (ps_buf_append(&it->key, p, (size_t)unshared) != 0) {
        it->status = -ENOMEM;
        it->current = it->block.restarts_offset;
        return 0;
    }
    it->value = ps_slice(p + unshared, (size_t)vlen);
    it->next_off = (uint32_t)(p + unshared + vlen - it->block.data);
    return 1;
}

static void seek_to_restart(block_iter_t *it, uint32_t i) {
    it->key.len = 0;
    it->next_off = restart_point(it, i);
}

static int block_valid(ps_iter_t *base) {
    block_iter_t *it = (block_iter_t *)base;
    return it->current < it->block.restarts_offset;
}

static void block_seek_first(ps_iter_t *base) {
    block_iter_t *it = (block_iter_t *)base;
    seek_to_restart(it, 0);
    parse_next(it);
}

static void block_seek(ps_iter_t *base, ps_slice_t target) {
    block_iter_t *it = (block_iter_t *)base;
    /* The last restart point whose key is < target; entries before it are all smaller. */
    uint32_t lo = 0, hi = it->block.n_restarts - 1;
    while (lo < hi) {
        uint32_t mid = (lo + hi + 1) / 2;
        seek_to_restart(it, mid);
        if (!parse_next(it)) return;
        if (it->cmp(ps_buf_slice(&it->key), target) < 0) lo = mid;
        else hi = mid - 1;
    }
    seek_to_restart(it, lo);
    while (parse_next(it))
        if (it->cmp(ps_buf_slice(&it->key), target) >= 0) return;
}

static void block_next(ps_iter_t *base) {
    block_iter_t *it = (block_iter_t *)base;
    if (block_valid(base)) parse_next(it);
}

static ps_slice_t block_key(ps_iter_t *base) { return ps_buf_slice(&((block_iter_t *)base)->key); }
static ps_slice_t block_value(ps_iter_t *base) { return ((block_iter_t *)base)->value; }
static int block_status(ps_iter_t *base) { return ((block_iter_t *)base)->status; }

static void block_destroy(ps_iter_t *base) {
    block_iter_t *it = (block_iter_t *)base;
    if (it->on_destroy) it->on_destroy(it->arg);
    ps_buf_free(&it->key);
    free(it);
}

static const ps_iter_ops_t block_ops = {block_valid, block_seek_first, block_seek,   block_next,
                                        block_key,   block_value,      block_status, block_destroy};

ps_iter_t *ps_block_iter_new(const ps_block_t *block, ps_cmp_fn cmp, void (*on_destroy)(void *), void *arg) {
    block_iter_t *it = calloc(1, sizeof *it);
    if (!it) {
        if (on_destroy) on_destroy(arg);
        return NULL;
    }
    it->base.ops = &block_ops;
    it->block = *block;
    it->cmp = cmp;
    it->current = block->restarts_offset;
    it->next_off = 0;
    it->on_destroy = on_destroy;
    it->arg = arg;
    return &it->base;
}
