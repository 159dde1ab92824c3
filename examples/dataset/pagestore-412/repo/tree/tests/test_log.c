/* The write-ahead log read back after a torn write, batches, and the manifest. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "version.h"
#include "wal_reader.h"
#include "write_batch.h"

static int count_entries(void *arg, uint64_t seq, int type, ps_slice_t key, ps_slice_t value) {
    (void)seq;
    (void)key;
    (void)value;
    if (type == PS_TYPE_VALUE) ++*(int *)arg;
    return 0;
}

static int on_record(void *arg, uint64_t segment, ps_slice_t record) {
    (void)segment;
    return ps_batch_replay(record, count_entries, arg, NULL);
}

static void test_wal_replay_ignores_torn_tail(const char *dir) {
    ps_wal_t *w = NULL;
    assert(ps_wal_open(dir, 1 << 20, &w) == 0);
    ps_batch_t *b = ps_batch_new();
    ps_buf_t rec = {0};
    for (int i = 0; i < 10; i++) {
        ps_batch_clear(b);
        assert(ps_batch_put(b, "k", 1, "v", 1) == 0);
        assert(ps_batch_delete(b, "old", 3) == 0);
        assert(ps_batch_encode(b, (uint64_t)(2 * i + 1), &rec) == 0);
        assert(ps_wal_append(w, rec.data, (uint32_t)rec.len) == 0);
    }
    assert(ps_wal_sync(w) == 0);
    ps_wal_close(w);
    ps_buf_free(&rec);
    ps_batch_free(b);

    char path[256];
    snprintf(path, sizeof path, "%s/00000001.wal", dir);
    int fd = open(path, O_WRONLY | O_APPEND);
    assert(write(fd, "\0\0\0\x40\x12\x34", 6) == 6);
    close(fd);

    int puts_seen = 0;
    ps_wal_replay_stats_t stats;
    assert(ps_wal_replay(dir, 1, on_record, &puts_seen, &stats) == 0);
    assert(puts_seen == 10 && stats.records == 10 && stats.torn_bytes == 6);
    assert(ps_wal_remove_segments(dir, UINT64_MAX) == 0);
}

static void test_manifest_round_trip(const char *dir) {
    ps_versions_t vs;
    assert(ps_versions_recover(&vs, dir) == 0);
    ps_buf_t lo = {0}, hi = {0};
    ps_ikey_build(&lo, ps_slice("a", 1), 5, PS_TYPE_VALUE);
    ps_ikey_build(&hi, ps_slice("m", 1), 9, PS_TYPE_VALUE);
    ps_version_edit_t e;
    ps_edit_init(&e);
    uint64_t t1 = ps_versions_new_file_number(&vs), t2 = ps_versions_new_file_number(&vs);
    assert(ps_edit_add_file(&e, 0, t1, 1000, ps_buf_slice(&lo), ps_buf_slice(&hi)) == 0);
    assert(ps_edit_add_file(&e, 1, t2, 2000, ps_buf_slice(&lo), ps_buf_slice(&hi)) == 0);
    e.has_last_seq = 1;
    e.last_seq = 9;
    assert(ps_versions_log_and_apply(&vs, &e) == 0);
    ps_edit_free(&e);
    ps_edit_init(&e);
    assert(ps_edit_delete_file(&e, 0, t1) == 0);
    assert(ps_versions_log_and_apply(&vs, &e) == 0);
    ps_edit_free(&e);
    ps_versions_close(&vs);

    assert(ps_versions_recover(&vs, dir) == 0);
    assert(vs.levels[0].n == 0 && vs.levels[1].n == 1);
    assert(vs.levels[1].files[0].number == t2 && vs.levels[1].files[0].size == 2000);
    assert(vs.last_seq == 9 && vs.next_file > t2);
    assert(ps_file_overlaps(&vs.levels[1].files[0], ps_slice("c", 1), ps_slice("d", 1)));
    assert(!ps_file_overlaps(&vs.levels[1].files[0], ps_slice("n", 1), ps_slice("z", 1)));
    ps_versions_close(&vs);
    ps_buf_free(&lo);
    ps_buf_free(&hi);
}

int main(void) {
    char dir[] = "/tmp/pagestore-log-XXXXXX";
    assert(mkdtemp(dir));
    test_wal_replay_ignores_torn_tail(dir);
    test_manifest_round_trip(dir);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert(system(cmd) == 0);
    puts("test_log passed");
    return 0;
}
