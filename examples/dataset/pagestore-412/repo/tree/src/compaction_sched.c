/*
 * Planning and running compactions. Level 0 is compacted into level 1 once it holds
 * l0_compaction_trigger tables; a deeper level is compacted into the next one when it
 * outgrows its target (level1_bytes, ten times more per level). A planned job keeps its
 * inputs and output number until it succeeds; a failed attempt is retried with the same job
 * compaction_retry_ms later, while other levels keep compacting.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "db_impl.h"
#include "env.h"
#include "table.h"

static int is_pending_input(const ps_db_t *db, uint64_t number) {
    for (size_t i = 0; i < db->n_pending; i++)
        for (size_t j = 0; j < db->pending[i].job.n_inputs; j++)
            if (db->pending[i].job.inputs[j] == number) return 1;
    return 0;
}

static uint64_t level_target(const ps_db_t *db, int level) {
    uint64_t target = db->opts.level1_bytes;
    for (int l = 1; l < level; l++) target *= 10;
    return target;
}

static int add_input(ps_pending_t *p, int level, const ps_file_meta_t *f) {
    if (p->job.n_inputs == 16) return -E2BIG;
    p->input_levels[p->job.n_inputs] = level;
    p->job.inputs[p->job.n_inputs++] = f->number;
    return 0;
}

/* Adds the files of `level` overlapping the user-key range; fails if one is already taken. */
static int add_overlapping(const ps_db_t *db, ps_pending_t *p, int level, ps_slice_t lo, ps_slice_t hi) {
    const ps_level_t *l = &db->vs.levels[level];
    for (size_t i = 0; i < l->n; i++) {
        if (!ps_file_overlaps(&l->files[i], lo, hi)) continue;
        if (is_pending_input(db, l->files[i].number)) return -EBUSY;
        int rc = add_input(p, level, &l->files[i]);
        if (rc != 0) return rc;
    }
    return 0;
}

/* Deletion markers may be dropped when no level below the output holds the range. */
static int nothing_below(const ps_db_t *db, int output_level, ps_slice_t lo, ps_slice_t hi) {
    for (int level = output_level + 1; level < PS_NUM_LEVELS; level++)
        for (size_t i = 0; i < db->vs.levels[level].n; i++)
            if (ps_file_overlaps(&db->vs.levels[level].files[i], lo, hi)) return 0;
    return 1;
}

/* The user-key range covered by the inputs taken from `level` so far. */
static void input_range(const ps_db_t *db, const ps_pending_t *p, ps_slice_t *lo, ps_slice_t *hi) {
    int first = 1;
    for (size_t j = 0; j < p->job.n_inputs; j++) {
        const ps_level_t *l = &db->vs.levels[p->input_levels[j]];
        for (size_t i = 0; i < l->n; i++) {
            if (l->files[i].number != p->job.inputs[j]) continue;
            ps_slice_t s = ps_ikey_user(ps_buf_slice(&l->files[i].smallest));
            ps_slice_t g = ps_ikey_user(ps_buf_slice(&l->files[i].largest));
            if (first || ps_slice_cmp(s, *lo) < 0) *lo = s;
            if (first || ps_slice_cmp(g, *hi) > 0) *hi = g;
            first = 0;
        }
    }
}

static int plan(ps_db_t *db, int level, ps_pending_t *p) {
    const ps_level_t *l = &db->vs.levels[level];
    memset(p, 0, sizeof *p);
    if (level == 0) {
        for (size_t i = 0; i < l->n && i < 12; i++) {
            if (is_pending_input(db, l->files[i].number)) return -EBUSY;
            add_input(p, 0, &l->files[i]);
        }
    } else {
        /* The largest table of the level: the most bytes moved down per merge. */
        const ps_file_meta_t *pick = NULL;
        for (size_t i = 0; i < l->n; i++)
            if (!is_pending_input(db, l->files[i].number) && (!pick || l->files[i].size > pick->size))
                pick = &l->files[i];
        if (!pick) return -EBUSY;
        add_input(p, level, pick);
    }
    ps_slice_t lo = {0}, hi = {0};
    input_range(db, p, &lo, &hi);
    int rc = add_overlapping(db, p, level + 1, lo, hi);
    if (rc != 0) return rc;
    p->output_level = level + 1;
    p->job.output = ps_versions_new_file_number(&db->vs);
    p->job.block_size = db->opts.block_size;
    p->job.drop_deletions = nothing_below(db, p->output_level, lo, hi);
    return 0;
}

static int needs_compaction(const ps_db_t *db, int level) {
    if (level == 0) return db->vs.levels[0].n >= (size_t)db->opts.l0_compaction_trigger;
    return ps_versions_level_bytes(&db->vs, level) > level_target(db, level);
}

/* Records the result in the manifest, then removes the inputs from cache, pool and disk. */
static int install(ps_db_t *db, const ps_pending_t *p) {
    ps_version_edit_t edit;
    ps_edit_init(&edit);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < p->job.n_inputs; i++)
        rc = ps_edit_delete_file(&edit, p->input_levels[i], p->job.inputs[i]);
    ps_sstable_t *out = NULL;
    ps_buf_t smallest = {0}, largest = {0};
    int have_output = rc == 0 && ps_table_cache_get(db->cache, p->job.output, &out) == 0;
    if (have_output) rc = ps_table_bounds(out, &smallest, &largest);
    if (have_output && rc == 0)
        rc = ps_edit_add_file(&edit, p->output_level, p->job.output, out->file_size, ps_buf_slice(&smallest),
                              ps_buf_slice(&largest));
    if (rc == 0) rc = ps_versions_log_and_apply(&db->vs, &edit);
    ps_edit_free(&edit);
    ps_buf_free(&smallest);
    ps_buf_free(&largest);
    if (rc != 0) return rc;
    for (size_t i = 0; i < p->job.n_inputs; i++) {
        char path[4200];
        ps_bufpool_drop_file(db->pool, p->job.inputs[i]);
        ps_env_table_path(path, sizeof path, db->opts.dir, p->job.inputs[i]);
        unlink(path);
    }
    if (have_output) db->counters.compacted_bytes += out->file_size;
    return 0;
}

static void remove_pending(ps_db_t *db, size_t i) {
    db->pending[i] = db->pending[--db->n_pending];
}

static void run_due(ps_db_t *db, uint64_t now_ms) {
    for (size_t i = 0; i < db->n_pending;) {
        ps_pending_t *p = &db->pending[i];
        if (now_ms < p->next_attempt_ms) {
            i++;
            continue;
        }
        p->attempts++;
        int rc = ps_compact(db->cache, &p->job, db->log);
        if (rc == 0) rc = install(db, p);
        if (rc == 0) {
            db->counters.compactions++;
            remove_pending(db, i);
            continue;
        }
        db->counters.compaction_failures++;
        p->next_attempt_ms = now_ms + db->opts.compaction_retry_ms;
        i++;
    }
}

void ps_sched_tick(ps_db_t *db, uint64_t now_ms) {
    run_due(db, now_ms);
    for (int level = 0; level < PS_NUM_LEVELS - 1 && db->n_pending < PS_MAX_PENDING; level++) {
        if (!needs_compaction(db, level)) continue;
        ps_pending_t p;
        if (plan(db, level, &p) != 0) continue;
        p.next_attempt_ms = now_ms;
        db->pending[db->n_pending++] = p;
        db->log("DEBUG", "planned compaction of %zu tables from level %d into %06" PRIu64, p.job.n_inputs, level,
                p.job.output);
    }
    run_due(db, now_ms);
}
