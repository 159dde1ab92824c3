/* The buffer pool: a fixed set of frames caching table blocks, keyed by (file number, block
 * index), replaced by the clock algorithm. Readers pin the frame of the block they iterate
 * and unpin it when they move on; pinned frames are never replaced. */
#ifndef PS_BUFFER_POOL_H
#define PS_BUFFER_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "pagestore.h"

typedef struct ps_bufpool ps_bufpool_t;
typedef struct ps_frame ps_frame_t;

typedef struct {
    uint64_t hits;
    uint64_t misses;
    uint64_t evictions;
    size_t frames;
    size_t used;
    size_t pinned;
} ps_bufpool_stats_t;

ps_bufpool_t *ps_bufpool_new(size_t n_frames, size_t frame_size);
/* Every frame must be unpinned. */
void ps_bufpool_free(ps_bufpool_t *p);

/* Pins block `block` of table t, reading it on a miss. -EBUSY when every frame is pinned,
 * -EOVERFLOW when the block is larger than a frame, or the read's error. */
int ps_bufpool_pin(ps_bufpool_t *p, ps_sstable_t *t, uint32_t block, ps_frame_t **frame);
void ps_bufpool_unpin(ps_bufpool_t *p, ps_frame_t *frame);
const char *ps_frame_data(const ps_frame_t *f);
size_t ps_frame_len(const ps_frame_t *f);

/* Forgets the blocks of a table that compaction deleted (the number is never reused, this
 * only frees the frames early). Pinned frames are left to age out. */
void ps_bufpool_drop_file(ps_bufpool_t *p, uint64_t file_number);

void ps_bufpool_stats(const ps_bufpool_t *p, ps_bufpool_stats_t *out);

#endif
