#include "wal_reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env.h"
#include "log_record.h"

typedef struct {
    uint64_t segment;
    ps_wal_record_fn fn;
    void *arg;
    ps_wal_replay_stats_t *stats;
} segment_replay_t;

static int replay_record(void *arg, ps_slice_t record) {
    segment_replay_t *r = arg;
    int rc = r->fn(r->arg, r->segment, record);
    if (rc != 0) return rc;
    r->stats->records++;
    r->stats->bytes += record.len;
    return 0;
}

static int replay_segment(const char *dir, uint64_t segment, int is_last, ps_wal_record_fn fn, void *arg,
                          ps_wal_replay_stats_t *stats) {
    char path[4200];
    ps_env_wal_path(path, sizeof path, dir, segment);
    segment_replay_t r = {segment, fn, arg, stats};
    size_t good = 0, total = 0;
    int rc = ps_log_read_file(path, replay_record, &r, &good, &total);
    if (rc == -EBADMSG && is_last) {
        stats->torn_bytes = total - good;
        rc = 0;
    }
    return rc;
}

int ps_wal_replay(const char *dir, uint64_t first_segment, ps_wal_record_fn fn, void *arg,
                  ps_wal_replay_stats_t *stats) {
    uint64_t *segments = NULL;
    size_t n = 0;
    memset(stats, 0, sizeof *stats);
    int rc = ps_env_list_numbered(dir, ".wal", &segments, &n);
    if (rc != 0) return rc;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (segments[i] < first_segment) continue;
        rc = replay_segment(dir, segments[i], i == n - 1, fn, arg, stats);
        stats->segments++;
        stats->last_segment = segments[i];
    }
    free(segments);
    return rc;
}

int ps_wal_remove_segments(const char *dir, uint64_t below) {
    uint64_t *segments = NULL;
    size_t n = 0;
    int rc = ps_env_list_numbered(dir, ".wal", &segments, &n);
    if (rc != 0) return rc;
    for (size_t i = 0; i < n && segments[i] < below; i++) {
        char path[4200];
        ps_env_wal_path(path, sizeof path, dir, segments[i]);
        if (unlink(path) != 0 && errno != ENOENT) rc = -errno;
    }
    free(segments);
    return rc;
}
