/* Tables written by the builder read back through sstable.c, the block format, and the
 * buffer pool. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "block.h"
#include "buffer_pool.h"
#include "table.h"

static void ikey(ps_buf_t *out, int i, uint64_t seq) {
    char k[32];
    snprintf(k, sizeof k, "key%06d", i);
    assert(ps_ikey_build(out, ps_slice(k, strlen(k)), seq, PS_TYPE_VALUE) == 0);
}

static void write_table(const char *dir, uint64_t number, int n) {
    ps_table_builder_t *b = NULL;
    assert(ps_table_builder_new(dir, number, 512, &b) == 0);
    ps_buf_t k = {0};
    for (int i = 0; i < n; i++) {
        char v[64];
        int len = snprintf(v, sizeof v, "value of %d", i);
        ikey(&k, i, (uint64_t)i + 1);
        assert(ps_table_builder_add(b, ps_buf_slice(&k), ps_slice(v, (size_t)len)) == 0);
    }
    /* Out of order keys are refused. */
    ikey(&k, 3, 99);
    assert(ps_table_builder_add(b, ps_buf_slice(&k), ps_slice("x", 1)) == -EINVAL);
    uint64_t size = 0;
    assert(ps_table_builder_finish(b, &size, NULL, NULL) == 0);
    assert(size > 0);
    ps_buf_free(&k);
}

static void test_seek_and_scan(const char *dir, ps_bufpool_t *pool) {
    ps_sstable_t *t = NULL;
    assert(ps_sst_open(dir, 21, &t) == 0);
    assert(t->n_blocks > 10);
    ps_iter_t *it = ps_table_iter_new(t, pool);
    int n = 0;
    for (ps_iter_seek_first(it); ps_iter_valid(it); ps_iter_next(it)) n++;
    assert(n == 500 && ps_iter_status(it) == 0);

    ps_buf_t k = {0};
    ikey(&k, 377, PS_MAX_SEQUENCE);
    ps_iter_seek(it, ps_buf_slice(&k));
    assert(ps_iter_valid(it));
    assert(memcmp(ps_iter_value(it).data, "value of 377", 12) == 0);
    ikey(&k, 900, PS_MAX_SEQUENCE);
    ps_iter_seek(it, ps_buf_slice(&k));
    assert(!ps_iter_valid(it));
    ps_iter_destroy(it);

    ps_buf_t lo = {0}, hi = {0};
    assert(ps_table_bounds(t, &lo, &hi) == 0);
    assert(memcmp(lo.data, "key000000", 9) == 0 && memcmp(hi.data, "key000499", 9) == 0);
    ps_buf_free(&lo);
    ps_buf_free(&hi);
    ps_buf_free(&k);
    ps_sst_close(t);
}

static void test_damaged_block(const char *dir) {
    char path[256];
    snprintf(path, sizeof path, "%s/000021.sst", dir);
    int fd = open(path, O_WRONLY);
    assert(fd >= 0);
    assert(pwrite(fd, "\xff", 1, 100) == 1);
    close(fd);
    ps_sstable_t *t = NULL;
    assert(ps_sst_open(dir, 21, &t) == 0); /* the footer is intact */
    ps_iter_t *it = ps_table_iter_new(t, NULL);
    for (ps_iter_seek_first(it); ps_iter_valid(it); ps_iter_next(it)) {
    }
    assert(ps_iter_status(it) == -EBADMSG);
    ps_iter_destroy(it);
    ps_sst_close(t);
}

int main(void) {
    char dir[] = "/tmp/pagestore-table-XXXXXX";
    assert(mkdtemp(dir));
    write_table(dir, 21, 500);
    ps_bufpool_t *pool = ps_bufpool_new(4, 65536);
    test_seek_and_scan(dir, NULL);
    test_seek_and_scan(dir, pool);
    ps_bufpool_stats_t s;
    ps_bufpool_stats(pool, &s);
    assert(s.pinned == 0 && s.used == 4 && s.evictions > 0);
    ps_bufpool_free(pool);
    test_damaged_block(dir);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert(system(cmd) == 0);
    puts("test_table passed");
    return 0;
}
