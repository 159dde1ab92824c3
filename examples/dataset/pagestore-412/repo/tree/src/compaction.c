/* Compaction of tables: a merge of the inputs in key order into one output table. Only the
 * newest version of each key is kept (pagestore has no snapshots), and deletion markers are
 * dropped when the job says no older data lies below the output. A job whose input cannot be
 * opened fails and is retried by the scheduler on its next tick. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "iterator.h"
#include "pagestore.h"
#include "table.h"

/* Opens every input through the cache and makes an iterator over each. */
static int open_inputs(ps_table_cache_t *cache, const ps_compaction_t *job, ps_log_fn log, ps_iter_t **children) {
    for (size_t i = 0; i < job->n_inputs; i++) {
        ps_sstable_t *t = NULL;
        int rc = ps_table_cache_get(cache, job->inputs[i], &t);
        if (rc != 0) {
            log("WARN", "compaction to %06" PRIu64 ": cannot open input %06" PRIu64 ": %s; will retry",
                job->output, job->inputs[i], strerror(-rc));
            return rc;
        }
        /* No buffer pool: a compaction reads each block once and would only evict hot ones. */
        children[i] = ps_table_iter_new(t, NULL);
        if (!children[i]) return -ENOMEM;
    }
    return 0;
}

/* Copies the merged entries into the builder, skipping shadowed versions. */
static int copy_entries(ps_iter_t *merged, const ps_compaction_t *job, ps_table_builder_t *out, uint64_t *dropped) {
    ps_buf_t current = {0}; /* user key of the last entry seen */
    int have_current = 0;
    int rc = 0;
    for (ps_iter_seek_first(merged); rc == 0 && ps_iter_valid(merged); ps_iter_next(merged)) {
        ps_slice_t ikey = ps_iter_key(merged);
        ps_slice_t user = ps_ikey_user(ikey);
        if (have_current && ps_slice_cmp(user, ps_buf_slice(&current)) == 0) {
            (*dropped)++; /* an older version of a key already written */
            continue;
        }
        rc = ps_buf_set(&current, user);
        have_current = 1;
        if (rc != 0) break;
        if (job->drop_deletions && ps_ikey_type(ikey) == PS_TYPE_DELETION) {
            (*dropped)++;
            continue;
        }
        rc = ps_table_builder_add(out, ikey, ps_iter_value(merged));
    }
    if (rc == 0) rc = ps_iter_status(merged);
    ps_buf_free(&current);
    return rc;
}

static int write_output(ps_table_cache_t *cache, const ps_compaction_t *job, ps_iter_t *merged, uint64_t *bytes,
                        uint64_t *dropped) {
    ps_table_builder_t *out = NULL;
    int rc = ps_table_builder_new(ps_table_cache_dir(cache), job->output, job->block_size, &out);
    if (rc != 0) return rc;
    rc = copy_entries(merged, job, out, dropped);
    if (rc != 0 || ps_table_builder_entries(out) == 0) {
        /* Failed, or everything was deleted: no output table at all. */
        ps_table_builder_abandon(out);
        *bytes = 0;
        return rc;
    }
    return ps_table_builder_finish(out, bytes, NULL, NULL);
}

int ps_compact(ps_table_cache_t *cache, const ps_compaction_t *job, ps_log_fn log) {
    ps_iter_t *children[16] = {0};
    uint64_t bytes = 0, dropped = 0;
    if (job->n_inputs == 0 || job->n_inputs > 16) return -EINVAL;
    int rc = open_inputs(cache, job, log, children);
    if (rc != 0) {
        for (size_t i = 0; i < job->n_inputs; i++) ps_iter_destroy(children[i]);
        return rc;
    }
    ps_iter_t *merged = ps_merging_iter_new(children, job->n_inputs, ps_ikey_cmp);
    if (!merged) return -ENOMEM;
    rc = write_output(cache, job, merged, &bytes, &dropped);
    ps_iter_destroy(merged);
    if (rc != 0) {
        log("WARN", "compaction to %06" PRIu64 " failed: %s; will retry", job->output, strerror(-rc));
        return rc;
    }
    for (size_t i = 0; i < job->n_inputs; i++) ps_table_cache_evict(cache, job->inputs[i]);
    log("INFO", "compacted %zu tables into %06" PRIu64 " (%" PRIu64 " bytes)", job->n_inputs, job->output, bytes);
    if (dropped > 0) log("DEBUG", "compaction to %06" PRIu64 " dropped %" PRIu64 " entries", job->output, dropped);
    return 0;
}
