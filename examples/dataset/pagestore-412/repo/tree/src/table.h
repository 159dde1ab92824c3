/* Writing tables, and iterating the tables sstable.c opens. */
#ifndef PS_TABLE_H
#define PS_TABLE_H

#include "buffer_pool.h"
#include "coding.h"
#include "iterator.h"
#include "pagestore.h"

typedef struct ps_table_builder ps_table_builder_t;

/* Creates <dir>/<file_number>.sst; it must not exist. */
int ps_table_builder_new(const char *dir, uint64_t file_number, uint32_t block_size, ps_table_builder_t **out);
/* Internal keys in increasing order. */
int ps_table_builder_add(ps_table_builder_t *b, ps_slice_t ikey, ps_slice_t value);
uint64_t ps_table_builder_entries(const ps_table_builder_t *b);
/* Writes the index and footer, syncs and closes the file, frees the builder. The first and
 * last key are copied into smallest and largest when given. */
int ps_table_builder_finish(ps_table_builder_t *b, uint64_t *file_size, ps_buf_t *smallest, ps_buf_t *largest);
/* Closes and removes the unfinished file, frees the builder. */
void ps_table_builder_abandon(ps_table_builder_t *b);

/* Iterates a table's internal keys. Blocks come from the pool when one is given; without a
 * pool (compaction, pstool) each block is read into a private buffer so that a one-off scan
 * does not push the working set out of the pool. */
ps_iter_t *ps_table_iter_new(ps_sstable_t *t, ps_bufpool_t *pool);

/* The first and last internal key of a table (-ENODATA when it has no entries). */
int ps_table_bounds(ps_sstable_t *t, ps_buf_t *smallest, ps_buf_t *largest);

#endif
