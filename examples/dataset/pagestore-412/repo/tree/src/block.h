/*
 * Data blocks of a table. Entries share key prefixes with the entry before them, except at
 * restart points (every restart_interval entries), which seeks binary-search:
 *   entry:   shared (varint) | unshared (varint) | value length (varint) | key suffix | value
 *   block:   entries | restart offsets (4 each) | restart count (4) | type (1) | crc (4)
 * The crc is CRC-32C of everything before it; type 0 is the only type (uncompressed).
 */
#ifndef PS_BLOCK_H
#define PS_BLOCK_H

#include "coding.h"
#include "iterator.h"

#define PS_BLOCK_TRAILER 5

typedef struct {
    ps_buf_t buf;
    ps_buf_t last_key;
    uint32_t *restarts;
    size_t n_restarts;
    size_t cap_restarts;
    int restart_interval;
    int counter;
    size_t n_entries;
    int finished;
} ps_block_builder_t;

void ps_block_builder_init(ps_block_builder_t *b, int restart_interval);
/* Keys must be added in increasing order. */
int ps_block_builder_add(ps_block_builder_t *b, ps_slice_t key, ps_slice_t value);
/* The size the block would have if finished now. */
size_t ps_block_builder_estimate(const ps_block_builder_t *b);
int ps_block_builder_empty(const ps_block_builder_t *b);
/* Appends restarts and trailer; the result stays valid until reset or free. */
int ps_block_builder_finish(ps_block_builder_t *b, ps_slice_t *out);
void ps_block_builder_reset(ps_block_builder_t *b);
void ps_block_builder_free(ps_block_builder_t *b);

typedef struct {
    const char *data; /* the entries and restart array, not owned */
    size_t size;      /* without the trailer */
    uint32_t restarts_offset;
    uint32_t n_restarts;
} ps_block_t;

/* Checks the trailer of a raw block read from a table; -EBADMSG when damaged. */
int ps_block_parse(const char *raw, size_t len, ps_block_t *out);

/* Iterates a parsed block; the block's bytes must outlive the iterator. on_destroy, when
 * given, is called with arg as the iterator goes away (to unpin the block's frame). */
ps_iter_t *ps_block_iter_new(const ps_block_t *block, ps_cmp_fn cmp, void (*on_destroy)(void *), void *arg);

#endif
