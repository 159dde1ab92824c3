/* Forward iterators over sorted key/value sequences: blocks, tables, memtables, and the
 * merge of several of them. */
#ifndef PS_ITERATOR_H
#define PS_ITERATOR_H

#include "coding.h"

typedef struct ps_iter ps_iter_t;

typedef struct {
    int (*valid)(ps_iter_t *it);
    void (*seek_first)(ps_iter_t *it);
    /* Positions at the first entry whose key is >= target. */
    void (*seek)(ps_iter_t *it, ps_slice_t target);
    void (*next)(ps_iter_t *it);
    ps_slice_t (*key)(ps_iter_t *it);
    ps_slice_t (*value)(ps_iter_t *it);
    /* 0, or the negative errno that made the iterator stop early. */
    int (*status)(ps_iter_t *it);
    void (*destroy)(ps_iter_t *it);
} ps_iter_ops_t;

struct ps_iter {
    const ps_iter_ops_t *ops;
};

typedef int (*ps_cmp_fn)(ps_slice_t a, ps_slice_t b);

static inline int ps_iter_valid(ps_iter_t *it) { return it->ops->valid(it); }
static inline void ps_iter_seek_first(ps_iter_t *it) { it->ops->seek_first(it); }
static inline void ps_iter_seek(ps_iter_t *it, ps_slice_t k) { it->ops->seek(it, k); }
static inline void ps_iter_next(ps_iter_t *it) { it->ops->next(it); }
static inline ps_slice_t ps_iter_key(ps_iter_t *it) { return it->ops->key(it); }
static inline ps_slice_t ps_iter_value(ps_iter_t *it) { return it->ops->value(it); }
static inline int ps_iter_status(ps_iter_t *it) { return it->ops->status(it); }
static inline void ps_iter_destroy(ps_iter_t *it) {
    if (it) it->ops->destroy(it);
}

/* An iterator with no entries and the given status (0 or a negative errno). */
ps_iter_t *ps_empty_iter_new(int status);

/* Merges children (taking ownership of them) in cmp order. With equal keys the child that
 * comes first in the array is returned first. Returns NULL on allocation failure, after
 * destroying the children. */
ps_iter_t *ps_merging_iter_new(ps_iter_t **children, size_t n, ps_cmp_fn cmp);

#endif
