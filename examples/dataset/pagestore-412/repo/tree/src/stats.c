/* Statistics: the database's counters plus process facts (descriptors, memory), as a
 * periodic one-line record and as a report for pstool. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "db_impl.h"
#include "env.h"

void ps_db_stats(ps_db_t *db, ps_stats_t *out) {
    *out = db->counters;
    out->wal_segment = db->wal ? ps_wal_segment(db->wal) : 0;
    out->table_cache_size = ps_table_cache_size(db->cache);
    out->pending_compactions = db->n_pending;
    for (int level = 0; level < PS_NUM_LEVELS; level++) {
        out->level_files[level] = db->vs.levels[level].n;
        out->level_bytes[level] = ps_versions_level_bytes(&db->vs, level);
    }
    ps_bufpool_stats_t pool;
    ps_bufpool_stats(db->pool, &pool);
    out->pool_hits = pool.hits;
    out->pool_misses = pool.misses;
    out->open_fds = ps_env_open_fds();
    out->rss_mb = ps_env_rss_mb();
}

const char *ps_stats_header(void) { return "time                      open_fds  rss_mb  wal_segment  table_cache_size"; }

int ps_stats_line(const ps_stats_t *s, const char *time, char *buf, size_t len) {
    return snprintf(buf, len, "%-26s%-10d%-8ld%08" PRIu64 "     %zu", time, s->open_fds, s->rss_mb, s->wal_segment,
                    s->table_cache_size);
}

static double ratio(uint64_t part, uint64_t whole) { return whole ? 100.0 * (double)part / (double)whole : 0.0; }

int ps_stats_report(const ps_stats_t *s, char *buf, size_t len) {
    size_t off = 0;
#define OUT(...)                                                                  \
    do {                                                                          \
        int n = snprintf(buf + off, off < len ? len - off : 0, __VA_ARGS__);      \
        if (n > 0) off += (size_t)n;                                              \
    } while (0)
    OUT("writes      %" PRIu64 " puts, %" PRIu64 " deletes\n", s->puts, s->deletes);
    OUT("reads       %" PRIu64 " gets, %.1f%% found\n", s->gets, ratio(s->get_hits, s->gets));
    OUT("flushes     %" PRIu64 "\n", s->flushes);
    OUT("compactions %" PRIu64 " done, %" PRIu64 " failed attempts, %zu pending, %" PRIu64 " bytes written\n",
        s->compactions, s->compaction_failures, s->pending_compactions, s->compacted_bytes);
    OUT("block pool  %.1f%% hits of %" PRIu64 " lookups\n", ratio(s->pool_hits, s->pool_hits + s->pool_misses),
        s->pool_hits + s->pool_misses);
    OUT("tables      %zu open in the cache\n", s->table_cache_size);
    for (int level = 0; level < PS_NUM_LEVELS; level++)
        if (s->level_files[level])
            OUT("  level %d   %zu tables, %" PRIu64 " bytes\n", level, s->level_files[level], s->level_bytes[level]);
    OUT("log         segment %08" PRIu64 "\n", s->wal_segment);
    OUT("process     %d open descriptors, %ld MiB resident\n", s->open_fds, s->rss_mb);
#undef OUT
    return (int)off;
}
