/* The memtable: recent writes in a skiplist ordered by internal key, until a flush turns
 * it into a level-0 table. Not thread safe; the database serializes access. */
#ifndef PS_MEMTABLE_H
#define PS_MEMTABLE_H

#include "coding.h"
#include "iterator.h"

typedef struct ps_memtable ps_memtable_t;

enum { PS_LOOKUP_MISSING = 0, PS_LOOKUP_FOUND = 1, PS_LOOKUP_DELETED = 2 };

ps_memtable_t *ps_memtable_new(void);
void ps_memtable_free(ps_memtable_t *m);

int ps_memtable_add(ps_memtable_t *m, uint64_t seq, int type, ps_slice_t key, ps_slice_t value);

/* The newest version of key with sequence <= seq: PS_LOOKUP_FOUND (value copied into out),
 * PS_LOOKUP_DELETED, or PS_LOOKUP_MISSING; a negative errno on allocation failure. */
int ps_memtable_get(ps_memtable_t *m, ps_slice_t key, uint64_t seq, ps_buf_t *out);

/* Bytes of entries and skiplist nodes, which decides when to flush. */
size_t ps_memtable_bytes(const ps_memtable_t *m);
size_t ps_memtable_entries(const ps_memtable_t *m);

/* Iterates internal keys; the memtable must outlive the iterator. */
ps_iter_t *ps_memtable_iter_new(ps_memtable_t *m);

#endif
