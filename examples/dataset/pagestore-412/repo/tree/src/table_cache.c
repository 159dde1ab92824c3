/* A small LRU of open tables so reads and compactions do not reopen files. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pagestore.h"

typedef struct entry {
    uint64_t file_number;
    ps_sstable_t *table;
    uint64_t last_used;
} entry_t;

struct ps_table_cache {
    char dir[4096];
    entry_t *entries;
    size_t capacity;
    size_t size;
    uint64_t clock;
};

ps_table_cache_t *ps_table_cache_new(const char *dir, size_t capacity) {
    ps_table_cache_t *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->entries = calloc(capacity, sizeof *c->entries);
    if (!c->entries) {
        free(c);
        return NULL;
    }
    strncpy(c->dir, dir, sizeof c->dir - 1);
    c->capacity = capacity;
    return c;
}

void ps_table_cache_free(ps_table_cache_t *c) {
    if (!c) return;
    for (size_t i = 0; i < c->size; i++) ps_sst_close(c->entries[i].table);
    free(c->entries);
    free(c);
}

static void evict_lru(ps_table_cache_t *c) {
    size_t victim = 0;
    for (size_t i = 1; i < c->size; i++)
        if (c->entries[i].last_used < c->entries[victim].last_used) victim = i;
    ps_sst_close(c->entries[victim].table);
    c->entries[victim] = c->entries[--c->size];
}

/* Returns the open table, opening it on a miss. Errors of the open are returned as is and
 * nothing is cached, so the next call tries again. */
int ps_table_cache_get(ps_table_cache_t *c, uint64_t file_number, ps_sstable_t **out) {
    for (size_t i = 0; i < c->size; i++) {
        if (c->entries[i].file_number == file_number) {
            c->entries[i].last_used = ++c->clock;
            *out = c->entries[i].table;
            return 0;
        }
    }
    ps_sstable_t *t = NULL;
    int rc = ps_sst_open(c->dir, file_number, &t);
    if (rc != 0) return rc;
    if (c->size == c->capacity) evict_lru(c);
    c->entries[c->size++] = (entry_t){.file_number = file_number, .table = t, .last_used = ++c->clock};
    *out = t;
    return 0;
}

void ps_table_cache_evict(ps_table_cache_t *c, uint64_t file_number) {
    for (size_t i = 0; i < c->size; i++) {
        if (c->entries[i].file_number == file_number) {
            ps_sst_close(c->entries[i].table);
            c->entries[i] = c->entries[--c->size];
            return;
        }
    }
}

size_t ps_table_cache_size(const ps_table_cache_t *c) { return c->size; }

const char *ps_table_cache_dir(const ps_table_cache_t *c) { return c->dir; }
