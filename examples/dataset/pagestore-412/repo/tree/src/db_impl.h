/* The database's state, shared by db.c, compaction_sched.c and stats.c. */
#ifndef PS_DB_IMPL_H
#define PS_DB_IMPL_H

#include "buffer_pool.h"
#include "memtable.h"
#include "pagestore.h"
#include "pagestore_db.h"
#include "version.h"

#define PS_MAX_PENDING 8

/* A compaction that was planned and has not succeeded yet. Its inputs stay out of new plans
 * and its output number stays reserved until it succeeds; a failed attempt is retried after
 * compaction_retry_ms with the same job. */
typedef struct {
    ps_compaction_t job;
    int input_levels[16];
    int output_level;
    uint64_t next_attempt_ms;
    uint32_t attempts;
} ps_pending_t;

struct ps_db {
    ps_options_t opts;
    ps_log_fn log;
    ps_versions_t vs;
    uint64_t last_seq; /* the last sequence number written; vs.last_seq is the last flushed */
    ps_memtable_t *mem;
    ps_wal_t *wal;
    ps_table_cache_t *cache;
    ps_bufpool_t *pool;
    ps_pending_t pending[PS_MAX_PENDING];
    size_t n_pending;
    uint64_t last_stats_ms;
    ps_stats_t counters; /* the event counters; ps_db_stats fills in the rest */
    ps_buf_t record;     /* scratch for log records */
};

/* Runs due compactions and plans new ones (compaction_sched.c). */
void ps_sched_tick(ps_db_t *db, uint64_t now_ms);

#endif
