/* A two-level iterator over a table: the block index selects a block, a block iterator
 * walks it. The index holds offsets only, so a seek binary-searches the blocks on their
 * first keys, which the buffer pool keeps hot for tables in use. */
#include <errno.h>
#include <stdlib.h>

#include "block.h"
#include "table.h"

typedef struct {
    ps_iter_t base;
    ps_sstable_t *table;
    ps_bufpool_t *pool;
    uint32_t block;    /* index of the loaded block; n_blocks when none */
    ps_iter_t *inner;  /* over the loaded block, or NULL */
    char *private_buf; /* for reads without a pool */
    size_t private_cap;
    int status;
} table_iter_t;

typedef struct {
    ps_bufpool_t *pool;
    ps_frame_t *frame;
} pin_t;

static void unpin(void *arg) {
    pin_t *pin = arg;
    ps_bufpool_unpin(pin->pool, pin->frame);
    free(pin);
}

static void drop_block(table_iter_t *it) {
    ps_iter_destroy(it->inner);
    it->inner = NULL;
    it->block = it->table->n_blocks;
}

static int read_private(table_iter_t *it, uint32_t block, const char **data, size_t *len) {
    uint64_t need = it->table->block_offsets[block + 1] - it->table->block_offsets[block];
    if (need > it->private_cap) {
        char *p = realloc(it->private_buf, (size_t)need);
        if (!p) return -ENOMEM;
        it->private_buf = p;
        it->private_cap = (size_t)need;
    }
    *data = it->private_buf;
    return ps_sst_read_block(it->table, block, it->private_buf, it->private_cap, len);
}

/* Makes `block` the loaded block. On failure the iterator becomes invalid with a status. */
static int load_block(table_iter_t *it, uint32_t block) {
    if (it->inner && it->block == block) return 0;
    drop_block(it);
    const char *data = NULL;
    size_t len = 0;
    pin_t *pin = NULL;
    int rc;
    if (it->pool) {
        pin = malloc(sizeof *pin);
        if (!pin) return it->status = -ENOMEM;
        pin->pool = it->pool;
        rc = ps_bufpool_pin(it->pool, it->table, block, &pin->frame);
        if (rc == 0) {
            data = ps_frame_data(pin->frame);
            len = ps_frame_len(pin->frame);
        } else {
            free(pin);
            pin = NULL;
        }
    } else {
        rc = read_private(it, block, &data, &len);
    }
    ps_block_t parsed;
    if (rc == 0) rc = ps_block_parse(data, len, &parsed);
    if (rc != 0) {
        if (pin) unpin(pin);
        return it->status = rc;
    }
    it->inner = ps_block_iter_new(&parsed, ps_ikey_cmp, pin ? unpin : NULL, pin);
    if (!it->inner) return it->status = -ENOMEM;
    it->block = block;
    return 0;
}

/* Moves forward over blocks until the inner iterator has an entry. */
static void skip_empty_blocks(table_iter_t *it) {
    while (it->inner && !ps_iter_valid(it->inner)) {
        int rc = ps_iter_status(it->inner);
        uint32_t next = it->block + 1;
        if (rc != 0) it->status = rc;
        drop_block(it);
        if (rc != 0 || next >= it->table->n_blocks || load_block(it, next) != 0) return;
        ps_iter_seek_first(it->inner);
    }
}

static int tab_valid(ps_iter_t *base) {
    table_iter_t *it = (table_iter_t *)base;
    return it->inner && ps_iter_valid(it->inner);
}

static void tab_seek_first(ps_iter_t *base) {
    table_iter_t *it = (table_iter_t *)base;
    if (it->table->n_blocks == 0 || load_block(it, 0) != 0) return;
    ps_iter_seek_first(it->inner);
    skip_empty_blocks(it);
}

/* Compares the first key of a block with target; 2 when the block cannot be loaded. */
static int first_key_cmp(table_iter_t *it, uint32_t block, ps_slice_t target) {
    if (load_block(it, block) != 0) return 2;
    ps_iter_seek_first(it->inner);
    if (!ps_iter_valid(it->inner)) return 1;
    return ps_ikey_cmp(ps_iter_key(it->inner), target) <= 0 ? -1 : 1;
}

static void tab_seek(ps_iter_t *base, ps_slice_t target) {
    table_iter_t *it = (table_iter_t *)base;
    if (it->table->n_blocks == 0) return;
    /* The last block whose first key is <= target holds the answer, or it starts the next. */
    uint32_t lo = 0, hi = it->table->n_blocks - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        int c = first_key_cmp(it, mid, target);
        if (c == 2) return;
        if (c < 0) lo = mid;
        else hi = mid - 1;
    }
    if (load_block(it, lo) != 0) return;
    ps_iter_seek(it->inner, target);
    skip_empty_blocks(it);
}

static void tab_next(ps_iter_t *base) {
    table_iter_t *it = (table_iter_t *)base;
    if (!tab_valid(base)) return;
    ps_iter_next(it->inner);
    skip_empty_blocks(it);
}

static ps_slice_t tab_key(ps_iter_t *base) { return ps_iter_key(((table_iter_t *)base)->inner); }
static ps_slice_t tab_value(ps_iter_t *base) { return ps_iter_value(((table_iter_t *)base)->inner); }
static int tab_status(ps_iter_t *base) { return ((table_iter_t *)base)->status; }

static void tab_destroy(ps_iter_t *base) {
    table_iter_t *it = (table_iter_t *)base;
    drop_block(it);
    free(it->private_buf);
    free(it);
}

static const ps_iter_ops_t table_ops = {tab_valid, tab_seek_first, tab_seek,   tab_next,
                                        tab_key,   tab_value,      tab_status, tab_destroy};

ps_iter_t *ps_table_iter_new(ps_sstable_t *t, ps_bufpool_t *pool) {
    table_iter_t *it = calloc(1, sizeof *it);
    if (!it) return NULL;
    it->base.ops = &table_ops;
    it->table = t;
    it->pool = pool;
    it->block = t->n_blocks;
    return &it->base;
}

int ps_table_bounds(ps_sstable_t *t, ps_buf_t *smallest, ps_buf_t *largest) {
    ps_iter_t *it = ps_table_iter_new(t, NULL);
    if (!it) return -ENOMEM;
    table_iter_t *ti = (table_iter_t *)it;
    int rc = -ENODATA;
    tab_seek_first(it);
    if (tab_valid(it)) rc = ps_buf_set(smallest, tab_key(it));
    /* The last key is the last entry of the last block. */
    if (rc == 0 && load_block(ti, t->n_blocks - 1) != 0) rc = ti->status;
    if (rc == 0) {
        for (ps_iter_seek_first(ti->inner); ps_iter_valid(ti->inner); ps_iter_next(ti->inner))
            rc = ps_buf_set(largest, ps_iter_key(ti->inner));
        if (rc == 0) rc = ps_iter_status(ti->inner);
    }
    ps_iter_destroy(it);
    return rc;
}
