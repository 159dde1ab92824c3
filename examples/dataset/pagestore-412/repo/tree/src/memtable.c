#include "memtable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HEIGHT 12
#define ARENA_BLOCK (64 * 1024)

/* Entries are never freed one by one, so they come from an arena released with the table. */
typedef struct arena_block {
    struct arena_block *next;
    size_t used;
    size_t size;
    char data[];
} arena_block_t;

typedef struct node {
    const char *entry; /* internal key (lp) | value (lp) */
    int height;
    struct node *next[];
} node_t;

struct ps_memtable {
    arena_block_t *blocks;
    size_t bytes;
    size_t entries;
    int height;
    uint32_t rnd;
    node_t *head;
};

static void *arena_alloc(ps_memtable_t *m, size_t n) {
    n = (n + 7) & ~(size_t)7;
    arena_block_t *b = m->blocks;
    if (!b || b->size - b->used < n) {
        size_t size = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;
        b = malloc(sizeof *b + size);
        if (!b) return NULL;
        b->next = m->blocks;
        b->used = 0;
        b->size = size;
        m->blocks = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    m->bytes += n;
    return p;
}

static node_t *new_node(ps_memtable_t *m, const char *entry, int height) {
    node_t *n = arena_alloc(m, sizeof *n + (size_t)height * sizeof n->next[0]);
    if (!n) return NULL;
    n->entry = entry;
    n->height = height;
    for (int i = 0; i < height; i++) n->next[i] = NULL;
    return n;
}

/* Entries were encoded by ps_memtable_add, so they are decoded without bounds checks. */
static const char *read_lp(const char *p, ps_slice_t *s) {
    uint64_t len = 0;
    for (int shift = 0;; shift += 7) {
        unsigned char byte = (unsigned char)*p++;
        len |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) break;
    }
    *s = ps_slice(p, (size_t)len);
    return p + len;
}

static ps_slice_t entry_key(const char *entry) {
    ps_slice_t k;
    read_lp(entry, &k);
    return k;
}

static ps_slice_t entry_value(const char *entry) {
    ps_slice_t k, v;
    read_lp(read_lp(entry, &k), &v);
    return v;
}

/* Height h with probability 4^-(h-1). */
static int random_height(ps_memtable_t *m) {
    int h = 1;
    while (h < MAX_HEIGHT) {
        m->rnd = m->rnd * 1103515245u + 12345u;
        if ((m->rnd >> 16) % 4 != 0) break;
        h++;
    }
    return h;
}

ps_memtable_t *ps_memtable_new(void) {
    ps_memtable_t *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->rnd = 0xdeadbeef;
    m->height = 1;
    m->head = new_node(m, NULL, MAX_HEIGHT);
    if (!m->head) {
        free(m);
        return NULL;
    }
    return m;
}

void ps_memtable_free(ps_memtable_t *m) {
    if (!m) return;
    for (arena_block_t *b = m->blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(m);
}

/* The first node whose key is >= key; prev[i] gets the last node before it on level i. */
static node_t *find_ge(ps_memtable_t *m, ps_slice_t key, node_t **prev) {
    node_t *x = m->head;
    for (int level = m->height - 1; level >= 0; level--) {
        node_t *next = x->next[level];
        while (next && ps_ikey_cmp(entry_key(next->entry), key) < 0) {
            x = next;
            next = x->next[level];
        }
        if (prev) prev[level] = x;
    }
    return x->next[0];
}

int ps_memtable_add(ps_memtable_t *m, uint64_t seq, int type, ps_slice_t key, ps_slice_t value) {
    ps_buf_t enc = {0};
    ps_buf_t ikey = {0};
    int rc = ps_ikey_build(&ikey, key, seq, type);
    if (rc == 0) rc = ps_buf_put_lp(&enc, ps_buf_slice(&ikey));
    if (rc == 0) rc = ps_buf_put_lp(&enc, value);
    char *entry = rc == 0 ? arena_alloc(m, enc.len) : NULL;
    if (rc == 0 && !entry) rc = -ENOMEM;
    if (rc == 0) {
        memcpy(entry, enc.data, enc.len);
        node_t *prev[MAX_HEIGHT];
        find_ge(m, ps_buf_slice(&ikey), prev);
        int height = random_height(m);
        for (int i = m->height; i < height; i++) prev[i] = m->head;
        if (height > m->height) m->height = height;
        node_t *n = new_node(m, entry, height);
        if (!n) {
            rc = -ENOMEM;
        } else {
            for (int i = 0; i < height; i++) {
                n->next[i] = prev[i]->next[i];
                prev[i]->next[i] = n;
            }
            m->entries++;
        }
    }
    ps_buf_free(&enc);
    ps_buf_free(&ikey);
    return rc;
}

int ps_memtable_get(ps_memtable_t *m, ps_slice_t key, uint64_t seq, ps_buf_t *out) {
    ps_buf_t lookup = {0};
    /* The highest possible trailer for seq sorts before every older version of the key. */
    int rc = ps_ikey_build(&lookup, key, seq, PS_TYPE_VALUE);
    if (rc != 0) return rc;
    node_t *n = find_ge(m, ps_buf_slice(&lookup), NULL);
    ps_buf_free(&lookup);
    if (!n) return PS_LOOKUP_MISSING;
    ps_slice_t found = entry_key(n->entry);
    if (ps_slice_cmp(ps_ikey_user(found), key) != 0) return PS_LOOKUP_MISSING;
    if (ps_ikey_type(found) == PS_TYPE_DELETION) return PS_LOOKUP_DELETED;
    rc = ps_buf_set(out, entry_value(n->entry));
    return rc ? rc : PS_LOOKUP_FOUND;
}

size_t ps_memtable_bytes(const ps_memtable_t *m) { return m->bytes; }

size_t ps_memtable_entries(const ps_memtable_t *m) { return m->entries; }

typedef struct {
    ps_iter_t base;
    ps_memtable_t *m;
    node_t *node;
} mem_iter_t;

static int mem_valid(ps_iter_t *it) { return ((mem_iter_t *)it)->node != NULL; }

static void mem_seek_first(ps_iter_t *it) {
    mem_iter_t *mi = (mem_iter_t *)it;
    mi->node = mi->m->head->next[0];
}

static void mem_seek(ps_iter_t *it, ps_slice_t target) {
    mem_iter_t *mi = (mem_iter_t *)it;
    mi->node = find_ge(mi->m, target, NULL);
}

static void mem_next(ps_iter_t *it) {
    mem_iter_t *mi = (mem_iter_t *)it;
    if (mi->node) mi->node = mi->node->next[0];
}

static ps_slice_t mem_key(ps_iter_t *it) { return entry_key(((mem_iter_t *)it)->node->entry); }
static ps_slice_t mem_value(ps_iter_t *it) { return entry_value(((mem_iter_t *)it)->node->entry); }
static int mem_status(ps_iter_t *it) { (void)it; return 0; }
static void mem_destroy(ps_iter_t *it) { free(it); }

static const ps_iter_ops_t mem_ops = {mem_valid, mem_seek_first, mem_seek,   mem_next,
                                      mem_key,   mem_value,      mem_status, mem_destroy};

ps_iter_t *ps_memtable_iter_new(ps_memtable_t *m) {
    mem_iter_t *it = calloc(1, sizeof *it);
    if (!it) return NULL;
    it->base.ops = &mem_ops;
    it->m = m;
    return &it->base;
}
