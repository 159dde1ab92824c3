#include "wal_reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env.h"
#include "log_record.h"

static int replay_segment(const char *dir, uint64_t segment, int is_last, ps_wal_record_fn fn, void *arg,
                          ps_wal_replay_stats_t *stats) {
    char path[4200];
    char *data = NULL;
    size_t len = 0;
    ps_env_wal_path(path, sizeof path, dir, segment);
    int rc = ps_env_read_file(path, &data, &len);
    if (rc != 0) return rc;
    ps_log_reader_t reader;
    ps_log_reader_init(&reader, data, len);
    ps_slice_t record;
    while ((rc = ps_log_next(&reader, &record)) == 1) {
        rc = fn(arg, segment, record);
        if (rc != 0) break;
        stats->records++;
        stats->bytes += record.len;
    }
    if (rc == -EBADMSG && is_last) {
        stats->torn_bytes = len - reader.offset;
        rc = 0;
    }
    free(data);
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
