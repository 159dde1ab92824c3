/* Writes tables in the layout sstable.c reads: data blocks, an index holding the offset of
 * every block and the end of the last one (8 bytes each), and the 32-byte footer. The footer
 * crc covers magic, index offset and index size (bytes 0-19) and sits right after them; the
 * block count follows at byte 24 for tools, the reader derives it from the index size. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "block.h"
#include "table.h"

struct ps_table_builder {
    int fd;
    char path[4200];
    uint32_t block_size;
    ps_block_builder_t block;
    ps_buf_t index; /* block start offsets */
    uint32_t n_blocks;
    uint64_t offset;
    uint64_t entries;
    ps_buf_t first_key;
    ps_buf_t last_key;
};

static int write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int ps_table_builder_new(const char *dir, uint64_t file_number, uint32_t block_size, ps_table_builder_t **out) {
    ps_table_builder_t *b = calloc(1, sizeof *b);
    if (!b) return -ENOMEM;
    snprintf(b->path, sizeof b->path, "%s/%06" PRIu64 ".sst", dir, file_number);
    b->fd = open(b->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (b->fd < 0) {
        int err = -errno;
        free(b);
        return err;
    }
    b->block_size = block_size ? block_size : 4096;
    ps_block_builder_init(&b->block, 16);
    *out = b;
    return 0;
}

static int flush_block(ps_table_builder_t *b) {
    if (ps_block_builder_empty(&b->block)) return 0;
    ps_slice_t raw;
    int rc = ps_block_builder_finish(&b->block, &raw);
    if (rc == 0) rc = ps_buf_put_u64(&b->index, b->offset);
    if (rc == 0) rc = write_all(b->fd, raw.data, raw.len);
    if (rc != 0) return rc;
    b->offset += raw.len;
    b->n_blocks++;
    ps_block_builder_reset(&b->block);
    return 0;
}

int ps_table_builder_add(ps_table_builder_t *b, ps_slice_t ikey, ps_slice_t value) {
    if (b->entries > 0 && ps_ikey_cmp(ikey, ps_buf_slice(&b->last_key)) <= 0) return -EINVAL;
    int rc = ps_block_builder_add(&b->block, ikey, value);
    if (rc == 0 && b->entries == 0) rc = ps_buf_set(&b->first_key, ikey);
    if (rc == 0) rc = ps_buf_set(&b->last_key, ikey);
    if (rc != 0) return rc;
    b->entries++;
    if (ps_block_builder_estimate(&b->block) >= b->block_size) return flush_block(b);
    return 0;
}

uint64_t ps_table_builder_entries(const ps_table_builder_t *b) { return b->entries; }

static void free_builder(ps_table_builder_t *b) {
    if (b->fd >= 0) close(b->fd);
    ps_block_builder_free(&b->block);
    ps_buf_free(&b->index);
    ps_buf_free(&b->first_key);
    ps_buf_free(&b->last_key);
    free(b);
}

static int write_index_and_footer(ps_table_builder_t *b) {
    unsigned char footer[PS_FOOTER_SIZE] = {0};
    uint64_t index_offset = b->offset;
    int rc = ps_buf_put_u64(&b->index, index_offset); /* the end of the last block */
    if (rc == 0) rc = write_all(b->fd, b->index.data, b->index.len);
    if (rc != 0) return rc;
    ps_put_u64(footer, PS_SST_MAGIC);
    ps_put_u64(footer + 8, index_offset);
    ps_put_u32(footer + 16, (uint32_t)b->index.len);
    ps_put_u32(footer + 20, ps_crc32c(footer, 20));
    ps_put_u32(footer + 24, b->n_blocks);
    rc = write_all(b->fd, (const char *)footer, sizeof footer);
    if (rc != 0) return rc;
    b->offset += b->index.len + sizeof footer;
    return 0;
}

int ps_table_builder_finish(ps_table_builder_t *b, uint64_t *file_size, ps_buf_t *smallest, ps_buf_t *largest) {
    int rc = flush_block(b);
    if (rc == 0) rc = write_index_and_footer(b);
    if (rc == 0 && fsync(b->fd) != 0) rc = -errno;
    if (rc == 0 && smallest) rc = ps_buf_set(smallest, ps_buf_slice(&b->first_key));
    if (rc == 0 && largest) rc = ps_buf_set(largest, ps_buf_slice(&b->last_key));
    if (rc != 0) {
        ps_table_builder_abandon(b);
        return rc;
    }
    if (file_size) *file_size = b->offset;
    free_builder(b);
    return 0;
}

void ps_table_builder_abandon(ps_table_builder_t *b) {
    unlink(b->path);
    free_builder(b);
}
