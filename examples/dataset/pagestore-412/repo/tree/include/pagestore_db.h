#ifndef PAGESTORE_DB_H
#define PAGESTORE_DB_H

/*
 * The embedded key/value database on top of the table, cache and log primitives of
 * pagestore.h. Not thread safe: the embedding service calls it from one thread, and calls
 * ps_db_maintain() from that thread every few hundred milliseconds to flush, compact and
 * report. Errors are negative errno values.
 */

#include <stddef.h>
#include <stdint.h>

#include "pagestore.h"

typedef struct {
    char dir[4096];
    size_t table_cache_capacity;  /* open tables kept; default 512 */
    size_t buffer_pool_frames;    /* cached blocks; default 4096 */
    uint32_t block_size;          /* target data block size; default 4096 */
    uint64_t wal_segment_bytes;   /* default 64 MiB */
    uint64_t memtable_bytes;      /* flushed to level 0 beyond this; default 8 MiB */
    int l0_compaction_trigger;    /* level-0 tables that start a compaction; default 4 */
    uint64_t level1_bytes;        /* level 1 target size, x10 per level; default 64 MiB */
    uint64_t compaction_retry_ms; /* wait before retrying a failed compaction; default 5000 */
    int sync_writes;              /* fdatasync the log after every write; default 1 */
    uint64_t stats_interval_ms;   /* how often ps_db_maintain logs a stats line; 0 = never */
} ps_options_t;

void ps_options_defaults(ps_options_t *o);
/* "key = value" lines, '#' comments; unknown keys and bad values are errors described in err. */
int ps_options_parse(ps_options_t *o, const char *text, char *err, size_t errlen);
int ps_options_load(ps_options_t *o, const char *path, char *err, size_t errlen);
int ps_options_validate(const ps_options_t *o, char *err, size_t errlen);

typedef struct ps_batch ps_batch_t;

ps_batch_t *ps_batch_new(void);
void ps_batch_free(ps_batch_t *b);
void ps_batch_clear(ps_batch_t *b);
int ps_batch_put(ps_batch_t *b, const void *key, size_t klen, const void *val, size_t vlen);
int ps_batch_delete(ps_batch_t *b, const void *key, size_t klen);

typedef struct ps_db ps_db_t;

int ps_db_open(const ps_options_t *o, ps_log_fn log, ps_db_t **out);
void ps_db_close(ps_db_t *db);

int ps_db_put(ps_db_t *db, const void *key, size_t klen, const void *val, size_t vlen);
int ps_db_delete(ps_db_t *db, const void *key, size_t klen);
/* Applies every operation of the batch or none. */
int ps_db_write(ps_db_t *db, ps_batch_t *batch);

/* -ENOENT when absent; *val is malloc'ed. */
int ps_db_get(ps_db_t *db, const void *key, size_t klen, char **val, size_t *vlen);

/* Iterates live keys in order. Destroy every iterator before the next write or
 * ps_db_maintain(), either of which may replace the memtable it reads. */
typedef struct ps_db_iter ps_db_iter_t;
ps_db_iter_t *ps_db_iter_new(ps_db_t *db);
void ps_db_iter_seek(ps_db_iter_t *it, const void *key, size_t klen);
void ps_db_iter_seek_first(ps_db_iter_t *it);
int ps_db_iter_valid(ps_db_iter_t *it);
void ps_db_iter_next(ps_db_iter_t *it);
const char *ps_db_iter_key(ps_db_iter_t *it, size_t *len);
const char *ps_db_iter_value(ps_db_iter_t *it, size_t *len);
int ps_db_iter_status(ps_db_iter_t *it);
void ps_db_iter_free(ps_db_iter_t *it);

/* Writes the memtable to a level-0 table now. */
int ps_db_flush(ps_db_t *db);
/* Periodic work: flush a full memtable, run due compactions, log stats. */
void ps_db_maintain(ps_db_t *db, uint64_t now_ms);

#define PS_NUM_LEVELS 7

typedef struct {
    uint64_t puts, deletes, gets, get_hits;
    uint64_t flushes, compactions, compaction_failures, compacted_bytes;
    uint64_t wal_segment;
    size_t table_cache_size;
    size_t pending_compactions;
    size_t level_files[PS_NUM_LEVELS];
    uint64_t level_bytes[PS_NUM_LEVELS];
    uint64_t pool_hits, pool_misses;
    int open_fds;
    long rss_mb;
} ps_stats_t;

void ps_db_stats(ps_db_t *db, ps_stats_t *out);
/* The columns of the periodic stats line, and one line for a UTC time such as
 * 2025-10-29T22:30:00Z. */
const char *ps_stats_header(void);
int ps_stats_line(const ps_stats_t *s, const char *time, char *buf, size_t len);
/* A multi-line report for humans (pstool stats). */
int ps_stats_report(const ps_stats_t *s, char *buf, size_t len);

#endif
