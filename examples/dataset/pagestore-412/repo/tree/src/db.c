/* The database: the write path (log, then memtable), lookups through memtable and levels,
 * flushes of the memtable to level 0, and recovery from manifest and log at open. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db_impl.h"
#include "env.h"
#include "table.h"
#include "wal_reader.h"
#include "write_batch.h"

static void log_nothing(const char *level, const char *fmt, ...) {
    (void)level;
    (void)fmt;
}

/* A block holds up to block_size bytes plus the entry that crossed that size, and must fit
 * one buffer pool frame; entries of at most half a frame keep that true. */
static size_t frame_bytes(const ps_options_t *o) { return o->block_size * 4 > 65536 ? o->block_size * 4 : 65536; }

/* Writes the memtable as a level-0 table and records it with the log position from which
 * recovery must replay afterwards. */
static int write_level0(ps_db_t *db, uint64_t log_number) {
    uint64_t number = ps_versions_new_file_number(&db->vs);
    ps_table_builder_t *b = NULL;
    int rc = ps_table_builder_new(db->opts.dir, number, db->opts.block_size, &b);
    if (rc != 0) return rc;
    ps_iter_t *it = ps_memtable_iter_new(db->mem);
    if (!it) {
        ps_table_builder_abandon(b);
        return -ENOMEM;
    }
    for (ps_iter_seek_first(it); rc == 0 && ps_iter_valid(it); ps_iter_next(it))
        rc = ps_table_builder_add(b, ps_iter_key(it), ps_iter_value(it));
    ps_iter_destroy(it);
    if (rc != 0) {
        ps_table_builder_abandon(b);
        return rc;
    }
    uint64_t size = 0;
    ps_buf_t smallest = {0}, largest = {0};
    rc = ps_table_builder_finish(b, &size, &smallest, &largest);
    ps_version_edit_t edit;
    ps_edit_init(&edit);
    if (rc == 0) rc = ps_edit_add_file(&edit, 0, number, size, ps_buf_slice(&smallest), ps_buf_slice(&largest));
    edit.has_log_number = 1;
    edit.log_number = log_number;
    edit.has_last_seq = 1;
    edit.last_seq = db->last_seq; /* the whole memtable is in the table */
    if (rc == 0) rc = ps_versions_log_and_apply(&db->vs, &edit);
    if (rc == 0)
        db->log("INFO", "flushed %zu entries to %06" PRIu64 " (%" PRIu64 " bytes)", ps_memtable_entries(db->mem),
                number, size);
    ps_edit_free(&edit);
    ps_buf_free(&smallest);
    ps_buf_free(&largest);
    return rc;
}

static int reset_memtable(ps_db_t *db) {
    ps_memtable_t *fresh = ps_memtable_new();
    if (!fresh) return -ENOMEM;
    ps_memtable_free(db->mem);
    db->mem = fresh;
    return 0;
}

int ps_db_flush(ps_db_t *db) {
    if (ps_memtable_entries(db->mem) == 0) return 0;
    /* Everything in segments before the current one is now in the table. */
    uint64_t segment = ps_wal_segment(db->wal);
    int rc = write_level0(db, segment);
    if (rc != 0) return rc;
    db->counters.flushes++;
    ps_wal_remove_segments(db->opts.dir, segment);
    return reset_memtable(db);
}

typedef struct {
    ps_db_t *db;
    uint64_t max_seq;
} recovery_t;

static int recover_entry(void *arg, uint64_t seq, int type, ps_slice_t key, ps_slice_t value) {
    recovery_t *r = arg;
    if (seq <= r->db->vs.last_seq) return 0; /* already in a table */
    if (seq > r->max_seq) r->max_seq = seq;
    return ps_memtable_add(r->db->mem, seq, type, key, value);
}

static int recover_record(void *arg, uint64_t segment, ps_slice_t record) {
    (void)segment;
    return ps_batch_replay(record, recover_entry, arg, NULL);
}

/* Replays the log into the memtable, writes it to level 0 and starts a new log at segment 1,
 * so that a database that crashed repeatedly never replays the same records twice. */
static int recover_log(ps_db_t *db) {
    recovery_t r = {db, db->vs.last_seq};
    ps_wal_replay_stats_t stats;
    int rc = ps_wal_replay(db->opts.dir, db->vs.log_number, recover_record, &r, &stats);
    if (rc != 0) {
        db->log("ERROR", "recovery: log replay failed: %s", strerror(-rc));
        return rc;
    }
    if (stats.torn_bytes > 0)
        db->log("WARN", "recovery: ignoring %" PRIu64 " bytes of a torn record at the end of segment %08" PRIu64,
                stats.torn_bytes, stats.last_segment);
    db->last_seq = r.max_seq;
    if (ps_memtable_entries(db->mem) > 0) {
        rc = write_level0(db, 1);
        if (rc == 0) rc = reset_memtable(db);
    }
    if (rc == 0) rc = ps_wal_remove_segments(db->opts.dir, UINT64_MAX);
    if (rc == 0 && stats.records > 0)
        db->log("INFO", "recovery: replayed %" PRIu64 " records from %zu log segments", stats.records,
                stats.segments);
    return rc;
}

int ps_db_open(const ps_options_t *o, ps_log_fn log, ps_db_t **out) {
    ps_db_t *db = calloc(1, sizeof *db);
    if (!db) return -ENOMEM;
    db->opts = *o;
    db->log = log ? log : log_nothing;
    db->vs.manifest_fd = -1;
    int rc = (mkdir(o->dir, 0755) == 0 || errno == EEXIST) ? 0 : -errno;
    db->mem = ps_memtable_new();
    db->cache = ps_table_cache_new(o->dir, o->table_cache_capacity);
    db->pool = ps_bufpool_new(o->buffer_pool_frames, frame_bytes(o));
    if (rc == 0 && (!db->mem || !db->cache || !db->pool)) rc = -ENOMEM;
    if (rc == 0) rc = ps_versions_recover(&db->vs, o->dir);
    if (rc == 0) rc = recover_log(db);
    if (rc == 0) rc = ps_wal_open(o->dir, o->wal_segment_bytes, &db->wal);
    if (rc != 0) {
        ps_db_close(db);
        return rc;
    }
    db->log("INFO", "opened %s: %zu tables in level 0, last sequence %" PRIu64, o->dir, db->vs.levels[0].n,
            db->last_seq);
    *out = db;
    return 0;
}

void ps_db_close(ps_db_t *db) {
    if (!db) return;
    if (db->wal) {
        ps_wal_sync(db->wal);
        ps_wal_close(db->wal);
    }
    ps_table_cache_free(db->cache);
    ps_bufpool_free(db->pool);
    ps_memtable_free(db->mem);
    ps_versions_close(&db->vs);
    ps_buf_free(&db->record);
    free(db);
}

static int insert_entry(void *arg, uint64_t seq, int type, ps_slice_t key, ps_slice_t value) {
    ps_db_t *db = arg;
    if (type == PS_TYPE_VALUE) db->counters.puts++;
    else db->counters.deletes++;
    return ps_memtable_add(db->mem, seq, type, key, value);
}

int ps_db_write(ps_db_t *db, ps_batch_t *batch) {
    if (batch->count == 0) return 0;
    uint64_t first = db->last_seq + 1;
    int rc = ps_batch_encode(batch, first, &db->record);
    if (rc == 0) rc = ps_wal_append(db->wal, db->record.data, (uint32_t)db->record.len);
    if (rc == 0 && db->opts.sync_writes) rc = ps_wal_sync(db->wal);
    if (rc != 0) return rc;
    /* Logged: from here on the batch survives a crash, so it must reach the memtable. */
    uint64_t last = first;
    rc = ps_batch_replay(ps_buf_slice(&db->record), insert_entry, db, &last);
    db->last_seq = last;
    if (rc == 0 && ps_memtable_bytes(db->mem) >= db->opts.memtable_bytes) rc = ps_db_flush(db);
    return rc;
}

static int write_one(ps_db_t *db, int type, const void *key, size_t klen, const void *val, size_t vlen) {
    if (klen + vlen > frame_bytes(&db->opts) / 2) return -E2BIG;
    struct ps_batch batch = {{0}, 0};
    int rc = type == PS_TYPE_VALUE ? ps_batch_put(&batch, key, klen, val, vlen) : ps_batch_delete(&batch, key, klen);
    if (rc == 0) rc = ps_db_write(db, &batch);
    ps_buf_free(&batch.entries);
    return rc;
}

int ps_db_put(ps_db_t *db, const void *key, size_t klen, const void *val, size_t vlen) {
    return write_one(db, PS_TYPE_VALUE, key, klen, val, vlen);
}

int ps_db_delete(ps_db_t *db, const void *key, size_t klen) {
    return write_one(db, PS_TYPE_DELETION, key, klen, NULL, 0);
}

/* Looks the key up in one table: PS_LOOKUP_* or a negative errno. */
static int table_lookup(ps_db_t *db, uint64_t number, ps_slice_t lookup, ps_buf_t *value) {
    ps_sstable_t *t = NULL;
    int rc = ps_table_cache_get(db->cache, number, &t);
    if (rc != 0) return rc;
    ps_iter_t *it = ps_table_iter_new(t, db->pool);
    if (!it) return -ENOMEM;
    ps_iter_seek(it, lookup);
    rc = ps_iter_status(it);
    if (rc == 0 && ps_iter_valid(it) && ps_slice_cmp(ps_ikey_user(ps_iter_key(it)), ps_ikey_user(lookup)) == 0) {
        if (ps_ikey_type(ps_iter_key(it)) == PS_TYPE_DELETION) rc = PS_LOOKUP_DELETED;
        else rc = ps_buf_set(value, ps_iter_value(it)) ? -ENOMEM : PS_LOOKUP_FOUND;
    }
    ps_iter_destroy(it);
    return rc;
}

static int levels_lookup(ps_db_t *db, ps_slice_t lookup, ps_buf_t *value) {
    ps_slice_t user = ps_ikey_user(lookup);
    const ps_level_t *l0 = &db->vs.levels[0];
    for (size_t i = l0->n; i-- > 0;) { /* newest first */
        if (!ps_file_overlaps(&l0->files[i], user, user)) continue;
        int rc = table_lookup(db, l0->files[i].number, lookup, value);
        if (rc != PS_LOOKUP_MISSING) return rc;
    }
    for (int level = 1; level < PS_NUM_LEVELS; level++) {
        const ps_level_t *l = &db->vs.levels[level];
        size_t lo = 0, hi = l->n; /* first file whose largest key >= user */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (ps_slice_cmp(ps_ikey_user(ps_buf_slice(&l->files[mid].largest)), user) < 0) lo = mid + 1;
            else hi = mid;
        }
        if (lo == l->n || !ps_file_overlaps(&l->files[lo], user, user)) continue;
        int rc = table_lookup(db, l->files[lo].number, lookup, value);
        if (rc != PS_LOOKUP_MISSING) return rc;
    }
    return PS_LOOKUP_MISSING;
}

int ps_db_get(ps_db_t *db, const void *key, size_t klen, char **val, size_t *vlen) {
    ps_buf_t value = {0}, lookup = {0};
    db->counters.gets++;
    int rc = ps_memtable_get(db->mem, ps_slice(key, klen), db->last_seq, &value);
    if (rc == PS_LOOKUP_MISSING) {
        rc = ps_ikey_build(&lookup, ps_slice(key, klen), db->last_seq, PS_TYPE_VALUE);
        if (rc == 0) rc = levels_lookup(db, ps_buf_slice(&lookup), &value);
    }
    ps_buf_free(&lookup);
    if (rc == PS_LOOKUP_FOUND) {
        db->counters.get_hits++;
        /* Hand the buffer over; an empty value still needs a non-NULL pointer. */
        if (!value.data && ps_buf_reserve(&value, 1) != 0) return -ENOMEM;
        *val = value.data;
        *vlen = value.len;
        return 0;
    }
    ps_buf_free(&value);
    return rc < 0 ? rc : -ENOENT;
}

void ps_db_maintain(ps_db_t *db, uint64_t now_ms) {
    if (ps_memtable_bytes(db->mem) >= db->opts.memtable_bytes) {
        int rc = ps_db_flush(db);
        if (rc != 0) db->log("ERROR", "flush failed: %s", strerror(-rc));
    }
    ps_sched_tick(db, now_ms);
    if (db->opts.stats_interval_ms && now_ms - db->last_stats_ms >= db->opts.stats_interval_ms) {
        ps_stats_t s;
        char line[256];
        ps_db_stats(db, &s);
        ps_stats_line(&s, "-", line, sizeof line);
        db->log("INFO", "stats %s", line);
        db->last_stats_ms = now_ms;
    }
}
