/* The write-ahead log. Records are framed as len (4) | crc (4) | payload; a segment is
 * rotated when the next record would not fit. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pagestore.h"

struct ps_wal {
    char dir[4096];
    int fd;
    uint64_t segment;
    uint64_t offset;
    uint64_t max_segment_bytes;
};

static int open_segment(ps_wal_t *w, uint64_t segment) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%08" PRIu64 ".wal", w->dir, segment);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return -errno;
    w->fd = fd;
    w->segment = segment;
    w->offset = 0;
    return 0;
}

int ps_wal_open(const char *dir, uint64_t max_segment_bytes, ps_wal_t **out) {
    ps_wal_t *w = calloc(1, sizeof *w);
    if (!w) return -ENOMEM;
    strncpy(w->dir, dir, sizeof w->dir - 1);
    w->max_segment_bytes = max_segment_bytes;
    int rc = open_segment(w, 1);
    if (rc != 0) {
        free(w);
        return rc;
    }
    *out = w;
    return 0;
}

static int rotate(ps_wal_t *w) {
    int rc = ps_wal_sync(w);
    if (rc != 0) return rc;
    int old = w->fd;
    rc = open_segment(w, w->segment + 1);
    if (rc != 0) {
        fprintf(stderr, "wal: cannot open segment %08" PRIu64 ": %s\n", w->segment + 1, strerror(-rc));
        return rc;
    }
    close(old);
    return 0;
}

int ps_wal_append(ps_wal_t *w, const void *record, uint32_t len) {
    unsigned char header[8];
    uint32_t crc = ps_crc32c(record, len);
    if (w->offset + sizeof header + len > w->max_segment_bytes) {
        int rc = rotate(w);
        if (rc != 0) return rc;
    }
    for (int i = 0; i < 4; i++) {
        header[i] = (unsigned char)(len >> (24 - 8 * i));
        header[4 + i] = (unsigned char)(crc >> (24 - 8 * i));
    }
    if (write(w->fd, header, sizeof header) != (ssize_t)sizeof header) return -EIO;
    if (write(w->fd, record, len) != (ssize_t)len) return -EIO;
    w->offset += sizeof header + len;
    return 0;
}

int ps_wal_sync(ps_wal_t *w) { return fdatasync(w->fd) == 0 ? 0 : -errno; }

void ps_wal_close(ps_wal_t *w) {
    if (!w) return;
    close(w->fd);
    free(w);
}

uint64_t ps_wal_segment(const ps_wal_t *w) { return w->segment; }
