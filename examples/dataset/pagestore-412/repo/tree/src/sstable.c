/*
 * Reading sorted string tables. Layout: data blocks, then an index (the offset of every
 * block and the end offset), then a 32-byte footer:
 *   magic (8) | index offset (8) | index size (4) | block count (4) | footer crc (4) | pad (4)
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pagestore.h"

static uint64_t get_u64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    return v;
}

static uint32_t get_u32(const unsigned char *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static int read_full(int fd, void *buf, size_t len, off_t off) {
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, (char *)buf + done, len - done, off + (off_t)done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        if (n == 0) return -EIO;
        done += (size_t)n;
    }
    return 0;
}

int ps_sst_open(const char *dir, uint64_t file_number, ps_sstable_t **out) {
    char path[4096];
    unsigned char footer[PS_FOOTER_SIZE];
    struct stat st;

    snprintf(path, sizeof path, "%s/%06" PRIu64 ".sst", dir, file_number);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    if (fstat(fd, &st) != 0 || st.st_size < PS_FOOTER_SIZE) {
        int err = errno ? -errno : -EBADMSG;
        close(fd);
        return err;
    }
    int rc = read_full(fd, footer, sizeof footer, st.st_size - PS_FOOTER_SIZE);
    if (rc != 0) return rc;
    if (get_u64(footer) != PS_SST_MAGIC || get_u32(footer + 20) != ps_crc32c(footer, 20)) return -EBADMSG;

    ps_sstable_t *t = calloc(1, sizeof *t);
    if (!t) {
        close(fd);
        return -ENOMEM;
    }
    t->fd = fd;
    t->file_number = file_number;
    t->file_size = (uint64_t)st.st_size;
    t->index_offset = get_u64(footer + 8);
    t->index_size = get_u32(footer + 16);
    t->n_blocks = t->index_size / 8 - 1;
    if (t->index_offset + t->index_size > t->file_size - PS_FOOTER_SIZE || t->index_size < 8) {
        ps_sst_close(t);
        return -EBADMSG;
    }
    unsigned char *index = malloc(t->index_size);
    t->block_offsets = calloc(t->n_blocks + 1, sizeof *t->block_offsets);
    if (!index || !t->block_offsets) {
        free(index);
        ps_sst_close(t);
        return -ENOMEM;
    }
    rc = read_full(fd, index, t->index_size, (off_t)t->index_offset);
    if (rc == 0)
        for (uint32_t i = 0; i <= t->n_blocks; i++) t->block_offsets[i] = get_u64(index + 8 * i);
    free(index);
    if (rc != 0) {
        ps_sst_close(t);
        return rc;
    }
    *out = t;
    return 0;
}

void ps_sst_close(ps_sstable_t *t) {
    if (!t) return;
    if (t->fd >= 0) close(t->fd);
    free(t->block_offsets);
    free(t);
}

int ps_sst_read_block(ps_sstable_t *t, uint32_t block, char *buf, size_t cap, size_t *len) {
    if (block >= t->n_blocks) return -ERANGE;
    uint64_t start = t->block_offsets[block];
    uint64_t end = t->block_offsets[block + 1];
    if (end < start || end - start > cap) return -EOVERFLOW;
    int rc = read_full(t->fd, buf, (size_t)(end - start), (off_t)start);
    if (rc == 0) *len = (size_t)(end - start);
    return rc;
}
