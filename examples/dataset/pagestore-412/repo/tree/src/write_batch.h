/* Write batches and their log record: sequence (8) | count (4) | entries, each entry
 * type (1) | key (lp) | value (lp, puts only). */
#ifndef PS_WRITE_BATCH_H
#define PS_WRITE_BATCH_H

#include "coding.h"
#include "pagestore_db.h"

struct ps_batch {
    ps_buf_t entries;
    uint32_t count;
};

int ps_batch_encode(const ps_batch_t *b, uint64_t first_seq, ps_buf_t *out);

typedef int (*ps_batch_fn)(void *arg, uint64_t seq, int type, ps_slice_t key, ps_slice_t value);

/* Calls fn for every entry of a log record, with consecutive sequence numbers; stops at the
 * first non-zero return. -EBADMSG when the record does not parse. */
int ps_batch_replay(ps_slice_t record, ps_batch_fn fn, void *arg, uint64_t *last_seq);

#endif
