#include "buffer_pool.h"

#include <errno.h>
#include <stdlib.h>

struct ps_frame {
    uint64_t file_number;
    uint32_t block;
    int used;
    int pins;
    int referenced; /* second chance bit of the clock */
    size_t len;
    char *data;
    struct ps_frame *hash_next;
};

struct ps_bufpool {
    ps_frame_t *frames;
    size_t n_frames;
    size_t frame_size;
    char *memory;
    ps_frame_t **buckets;
    size_t n_buckets; /* a power of two */
    size_t hand;
    ps_bufpool_stats_t stats;
};

static size_t bucket_of(const ps_bufpool_t *p, uint64_t file_number, uint32_t block) {
    uint64_t h = file_number * 0x9e3779b97f4a7c15ull ^ block;
    h ^= h >> 29;
    return (size_t)(h & (p->n_buckets - 1));
}

ps_bufpool_t *ps_bufpool_new(size_t n_frames, size_t frame_size) {
    ps_bufpool_t *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->n_buckets = 16;
    while (p->n_buckets < 2 * n_frames) p->n_buckets *= 2;
    p->frames = calloc(n_frames, sizeof *p->frames);
    p->buckets = calloc(p->n_buckets, sizeof *p->buckets);
    p->memory = malloc(n_frames * frame_size);
    if (!p->frames || !p->buckets || !p->memory) {
        ps_bufpool_free(p);
        return NULL;
    }
    for (size_t i = 0; i < n_frames; i++) p->frames[i].data = p->memory + i * frame_size;
    p->n_frames = n_frames;
    p->frame_size = frame_size;
    p->stats.frames = n_frames;
    return p;
}

void ps_bufpool_free(ps_bufpool_t *p) {
    if (!p) return;
    free(p->frames);
    free(p->buckets);
    free(p->memory);
    free(p);
}

static ps_frame_t *lookup(ps_bufpool_t *p, uint64_t file_number, uint32_t block) {
    for (ps_frame_t *f = p->buckets[bucket_of(p, file_number, block)]; f; f = f->hash_next)
        if (f->file_number == file_number && f->block == block) return f;
    return NULL;
}

static void unlink_frame(ps_bufpool_t *p, ps_frame_t *f) {
    ps_frame_t **link = &p->buckets[bucket_of(p, f->file_number, f->block)];
    while (*link && *link != f) link = &(*link)->hash_next;
    if (*link) *link = f->hash_next;
    f->hash_next = NULL;
    f->used = 0;
    p->stats.used--;
}

/* Two sweeps of the clock: the first clears reference bits, the second finds the frames
 * they protected. Returns NULL when every frame is pinned. */
static ps_frame_t *find_victim(ps_bufpool_t *p) {
    for (size_t step = 0; step < 2 * p->n_frames; step++) {
        ps_frame_t *f = &p->frames[p->hand];
        p->hand = (p->hand + 1) % p->n_frames;
        if (f->pins > 0) continue;
        if (f->used && f->referenced) {
            f->referenced = 0;
            continue;
        }
        if (f->used) {
            unlink_frame(p, f);
            p->stats.evictions++;
        }
        return f;
    }
    return NULL;
}

int ps_bufpool_pin(ps_bufpool_t *p, ps_sstable_t *t, uint32_t block, ps_frame_t **frame) {
    ps_frame_t *f = lookup(p, t->file_number, block);
    if (f) {
        p->stats.hits++;
        f->pins++;
        f->referenced = 1;
        *frame = f;
        return 0;
    }
    p->stats.misses++;
    f = find_victim(p);
    if (!f) return -EBUSY;
    size_t len = 0;
    int rc = ps_sst_read_block(t, block, f->data, p->frame_size, &len);
    if (rc != 0) return rc;
    f->file_number = t->file_number;
    f->block = block;
    f->len = len;
    f->used = 1;
    f->pins = 1;
    f->referenced = 1;
    size_t b = bucket_of(p, f->file_number, block);
    f->hash_next = p->buckets[b];
    p->buckets[b] = f;
    p->stats.used++;
    *frame = f;
    return 0;
}

void ps_bufpool_unpin(ps_bufpool_t *p, ps_frame_t *frame) {
    (void)p;
    if (frame->pins > 0) frame->pins--;
}

const char *ps_frame_data(const ps_frame_t *f) { return f->data; }

size_t ps_frame_len(const ps_frame_t *f) { return f->len; }

void ps_bufpool_drop_file(ps_bufpool_t *p, uint64_t file_number) {
    for (size_t i = 0; i < p->n_frames; i++) {
        ps_frame_t *f = &p->frames[i];
        if (f->used && f->pins == 0 && f->file_number == file_number) unlink_frame(p, f);
    }
}

void ps_bufpool_stats(const ps_bufpool_t *p, ps_bufpool_stats_t *out) {
    *out = p->stats;
    out->pinned = 0;
    for (size_t i = 0; i < p->n_frames; i++)
        if (p->frames[i].pins > 0) out->pinned++;
}
