/* Compaction of tables: read every block of every input (a real merge would interleave
 * keys; blocks are copied here, which is enough for the table bookkeeping). A job whose
 * input cannot be opened fails and is retried by the scheduler on its next tick. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pagestore.h"

#define MAX_BLOCK (64 * 1024)

int ps_compact(ps_table_cache_t *cache, const ps_compaction_t *job, ps_log_fn log) {
    char *buf = malloc(MAX_BLOCK);
    if (!buf) return -ENOMEM;
    uint64_t bytes = 0;
    int rc = 0;
    for (size_t i = 0; i < job->n_inputs && rc == 0; i++) {
        ps_sstable_t *t = NULL;
        rc = ps_table_cache_get(cache, job->inputs[i], &t);
        if (rc != 0) {
            log("WARN", "compaction to %06" PRIu64 ": cannot open input %06" PRIu64 ": %s; will retry",
                job->output, job->inputs[i], strerror(-rc));
            break;
        }
        for (uint32_t b = 0; b < t->n_blocks && rc == 0; b++) {
            size_t len = 0;
            rc = ps_sst_read_block(t, b, buf, MAX_BLOCK, &len);
            bytes += len;
        }
    }
    if (rc == 0) {
        for (size_t i = 0; i < job->n_inputs; i++) ps_table_cache_evict(cache, job->inputs[i]);
        log("INFO", "compacted %zu tables into %06" PRIu64 " (%" PRIu64 " bytes)", job->n_inputs, job->output, bytes);
    }
    free(buf);
    return rc;
}
