#ifndef PAGESTORE_H
#define PAGESTORE_H

#include <stddef.h>
#include <stdint.h>

/* Error codes are negative errno values. */

#define PS_SST_MAGIC 0x5053535431ULL /* "PSST1" */
#define PS_FOOTER_SIZE 32

/* An open sorted string table: an immutable file of sorted key/value blocks. */
typedef struct ps_sstable {
    int fd;
    uint64_t file_number;
    uint64_t file_size;
    uint64_t index_offset;
    uint32_t index_size;
    uint32_t n_blocks;
    uint64_t *block_offsets; /* n_blocks + 1 entries */
} ps_sstable_t;

int ps_sst_open(const char *dir, uint64_t file_number, ps_sstable_t **out);
void ps_sst_close(ps_sstable_t *t);
int ps_sst_read_block(ps_sstable_t *t, uint32_t block, char *buf, size_t cap, size_t *len);

/* A bounded cache of open tables, keyed by file number. */
typedef struct ps_table_cache ps_table_cache_t;

ps_table_cache_t *ps_table_cache_new(const char *dir, size_t capacity);
void ps_table_cache_free(ps_table_cache_t *c);
int ps_table_cache_get(ps_table_cache_t *c, uint64_t file_number, ps_sstable_t **out);
void ps_table_cache_evict(ps_table_cache_t *c, uint64_t file_number);
size_t ps_table_cache_size(const ps_table_cache_t *c);
const char *ps_table_cache_dir(const ps_table_cache_t *c);

/* The write-ahead log: segments of fixed maximum size, rotated when full. */
typedef struct ps_wal ps_wal_t;

int ps_wal_open(const char *dir, uint64_t max_segment_bytes, ps_wal_t **out);
int ps_wal_append(ps_wal_t *w, const void *record, uint32_t len);
int ps_wal_sync(ps_wal_t *w);
void ps_wal_close(ps_wal_t *w);
uint64_t ps_wal_segment(const ps_wal_t *w);

/* Compaction: merges input tables into one output table in the cache's directory. */
typedef struct {
    uint64_t inputs[16];
    size_t n_inputs;
    uint64_t output;
    uint32_t block_size;
    int drop_deletions; /* no older data below the output level: deletion markers can go */
} ps_compaction_t;

typedef void (*ps_log_fn)(const char *level, const char *fmt, ...);

int ps_compact(ps_table_cache_t *cache, const ps_compaction_t *job, ps_log_fn log);

uint32_t ps_crc32c(const void *data, size_t len);

#endif
