/* Iteration over the whole database: a merge of the memtable and every table, showing for
 * each user key only its newest version, and nothing for keys whose newest version is a
 * deletion. The iterator opens the tables itself instead of borrowing them from the table
 * cache: a scan touches every table, and the cache would close the first ones to make room
 * for the last while they are still being read. */
#include <errno.h>
#include <stdlib.h>

#include "db_impl.h"
#include "table.h"

struct ps_db_iter {
    ps_iter_t *merged;
    ps_sstable_t **tables;
    size_t n_tables;
    ps_buf_t skip;  /* user key whose older versions are being skipped */
    int has_skip;
    int status;
};

/* Moves to the next entry that is the newest version of a live key. */
static void find_visible(ps_db_iter_t *it) {
    while (ps_iter_valid(it->merged)) {
        ps_slice_t ikey = ps_iter_key(it->merged);
        ps_slice_t user = ps_ikey_user(ikey);
        if (it->has_skip && ps_slice_cmp(user, ps_buf_slice(&it->skip)) == 0) {
            ps_iter_next(it->merged);
            continue;
        }
        if (ps_buf_set(&it->skip, user) != 0) {
            it->status = -ENOMEM;
            return;
        }
        it->has_skip = 1;
        if (ps_ikey_type(ikey) == PS_TYPE_VALUE) return;
        ps_iter_next(it->merged);
    }
}

static int add_child(ps_iter_t ***children, size_t *n, size_t *cap, ps_iter_t *child) {
    if (!child) return -ENOMEM;
    if (*n == *cap) {
        size_t grown_cap = *cap ? 2 * *cap : 16;
        ps_iter_t **grown = realloc(*children, grown_cap * sizeof *grown);
        if (!grown) {
            ps_iter_destroy(child);
            return -ENOMEM;
        }
        *children = grown;
        *cap = grown_cap;
    }
    (*children)[(*n)++] = child;
    return 0;
}

static size_t live_tables(const ps_db_t *db) {
    size_t n = 0;
    for (int level = 0; level < PS_NUM_LEVELS; level++) n += db->vs.levels[level].n;
    return n;
}

/* Opens a table for the iterator; one that cannot be opened shows up as its status. */
static ps_iter_t *open_table(ps_db_t *db, ps_db_iter_t *it, uint64_t number) {
    ps_sstable_t *t = NULL;
    int rc = ps_sst_open(db->opts.dir, number, &t);
    if (rc != 0) return ps_empty_iter_new(rc);
    it->tables[it->n_tables++] = t;
    return ps_table_iter_new(t, db->pool);
}

ps_db_iter_t *ps_db_iter_new(ps_db_t *db) {
    ps_db_iter_t *it = calloc(1, sizeof *it);
    ps_iter_t **children = NULL;
    size_t n = 0, cap = 0;
    int rc = it ? 0 : -ENOMEM;
    if (rc == 0) it->tables = calloc(live_tables(db) + 1, sizeof *it->tables);
    if (rc == 0 && !it->tables) rc = -ENOMEM;
    if (rc == 0) rc = add_child(&children, &n, &cap, ps_memtable_iter_new(db->mem));
    for (int level = 0; rc == 0 && level < PS_NUM_LEVELS; level++) {
        const ps_level_t *l = &db->vs.levels[level];
        for (size_t i = 0; rc == 0 && i < l->n; i++)
            rc = add_child(&children, &n, &cap, open_table(db, it, l->files[i].number));
    }
    if (rc == 0) {
        it->merged = ps_merging_iter_new(children, n, ps_ikey_cmp); /* owns the children now */
        n = 0;
        if (!it->merged) rc = -ENOMEM;
    }
    for (size_t i = 0; i < n; i++) ps_iter_destroy(children[i]);
    free(children);
    if (rc != 0) {
        ps_db_iter_free(it);
        return NULL;
    }
    return it;
}

void ps_db_iter_seek_first(ps_db_iter_t *it) {
    it->has_skip = 0;
    ps_iter_seek_first(it->merged);
    find_visible(it);
}

void ps_db_iter_seek(ps_db_iter_t *it, const void *key, size_t klen) {
    ps_buf_t target = {0};
    it->has_skip = 0;
    if (ps_ikey_build(&target, ps_slice(key, klen), PS_MAX_SEQUENCE, PS_TYPE_VALUE) != 0) {
        it->status = -ENOMEM;
        return;
    }
    ps_iter_seek(it->merged, ps_buf_slice(&target));
    ps_buf_free(&target);
    find_visible(it);
}

int ps_db_iter_valid(ps_db_iter_t *it) { return it->status == 0 && ps_iter_valid(it->merged); }

void ps_db_iter_next(ps_db_iter_t *it) {
    if (!ps_db_iter_valid(it)) return;
    ps_iter_next(it->merged);
    find_visible(it);
}

const char *ps_db_iter_key(ps_db_iter_t *it, size_t *len) {
    ps_slice_t user = ps_ikey_user(ps_iter_key(it->merged));
    *len = user.len;
    return user.data;
}

const char *ps_db_iter_value(ps_db_iter_t *it, size_t *len) {
    ps_slice_t v = ps_iter_value(it->merged);
    *len = v.len;
    return v.data;
}

int ps_db_iter_status(ps_db_iter_t *it) { return it->status ? it->status : ps_iter_status(it->merged); }

void ps_db_iter_free(ps_db_iter_t *it) {
    if (!it) return;
    if (it->merged) ps_iter_destroy(it->merged);
    for (size_t i = 0; i < it->n_tables; i++) ps_sst_close(it->tables[i]);
    free(it->tables);
    ps_buf_free(&it->skip);
    free(it);
}
