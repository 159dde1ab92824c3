#include "iterator.h"

#include <errno.h>
#include <stdlib.h>

typedef struct {
    ps_iter_t base;
    int status;
} empty_iter_t;

static int empty_valid(ps_iter_t *it) { (void)it; return 0; }
static void empty_seek_first(ps_iter_t *it) { (void)it; }
static void empty_seek(ps_iter_t *it, ps_slice_t k) { (void)it; (void)k; }
static void empty_next(ps_iter_t *it) { (void)it; }
static ps_slice_t empty_slice(ps_iter_t *it) { (void)it; return ps_slice("", 0); }
static int empty_status(ps_iter_t *it) { return ((empty_iter_t *)it)->status; }
static void empty_destroy(ps_iter_t *it) { free(it); }

static const ps_iter_ops_t empty_ops = {empty_valid, empty_seek_first, empty_seek, empty_next,
                                        empty_slice, empty_slice, empty_status, empty_destroy};

ps_iter_t *ps_empty_iter_new(int status) {
    empty_iter_t *it = calloc(1, sizeof *it);
    if (!it) return NULL;
    it->base.ops = &empty_ops;
    it->status = status;
    return &it->base;
}

/* The merge keeps no heap: the number of children is small (memtables plus the tables of
 * one lookup path), so a linear scan for the smallest is cheaper than keeping one. */
typedef struct {
    ps_iter_t base;
    ps_cmp_fn cmp;
    ps_iter_t **children;
    size_t n;
    ps_iter_t *current;
} merging_iter_t;

static void find_smallest(merging_iter_t *m) {
    ps_iter_t *smallest = NULL;
    for (size_t i = 0; i < m->n; i++) {
        ps_iter_t *c = m->children[i];
        if (!ps_iter_valid(c)) continue;
        if (!smallest || m->cmp(ps_iter_key(c), ps_iter_key(smallest)) < 0) smallest = c;
    }
    m->current = smallest;
}

static int merging_valid(ps_iter_t *it) { return ((merging_iter_t *)it)->current != NULL; }

static void merging_seek_first(ps_iter_t *it) {
    merging_iter_t *m = (merging_iter_t *)it;
    for (size_t i = 0; i < m->n; i++) ps_iter_seek_first(m->children[i]);
    find_smallest(m);
}

static void merging_seek(ps_iter_t *it, ps_slice_t target) {
    merging_iter_t *m = (merging_iter_t *)it;
    for (size_t i = 0; i < m->n; i++) ps_iter_seek(m->children[i], target);
    find_smallest(m);
}

static void merging_next(ps_iter_t *it) {
    merging_iter_t *m = (merging_iter_t *)it;
    if (!m->current) return;
    ps_iter_next(m->current);
    find_smallest(m);
}

static ps_slice_t merging_key(ps_iter_t *it) { return ps_iter_key(((merging_iter_t *)it)->current); }
static ps_slice_t merging_value(ps_iter_t *it) { return ps_iter_value(((merging_iter_t *)it)->current); }

static int merging_status(ps_iter_t *it) {
    merging_iter_t *m = (merging_iter_t *)it;
    for (size_t i = 0; i < m->n; i++) {
        int rc = ps_iter_status(m->children[i]);
        if (rc != 0) return rc;
    }
    return 0;
}

static void merging_destroy(ps_iter_t *it) {
    merging_iter_t *m = (merging_iter_t *)it;
    for (size_t i = 0; i < m->n; i++) ps_iter_destroy(m->children[i]);
    free(m->children);
    free(m);
}

static const ps_iter_ops_t merging_ops = {merging_valid, merging_seek_first, merging_seek,   merging_next,
                                          merging_key,   merging_value,      merging_status, merging_destroy};

ps_iter_t *ps_merging_iter_new(ps_iter_t **children, size_t n, ps_cmp_fn cmp) {
    merging_iter_t *m = calloc(1, sizeof *m);
    ps_iter_t **copy = calloc(n ? n : 1, sizeof *copy);
    if (!m || !copy) {
        free(m);
        free(copy);
        for (size_t i = 0; i < n; i++) ps_iter_destroy(children[i]);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) copy[i] = children[i];
    m->base.ops = &merging_ops;
    m->cmp = cmp;
    m->children = copy;
    m->n = n;
    return &m->base;
}
