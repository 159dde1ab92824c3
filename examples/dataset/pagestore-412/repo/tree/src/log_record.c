#include "log_record.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "env.h"
#include "pagestore.h"

int ps_log_append(int fd, ps_slice_t payload) {
    ps_buf_t rec = {0};
    int rc = ps_buf_put_u32(&rec, (uint32_t)payload.len);
    if (rc == 0) rc = ps_buf_put_u32(&rec, ps_crc32c(payload.data, payload.len));
    if (rc == 0) rc = ps_buf_append(&rec, payload.data, payload.len);
    if (rc == 0) {
        ssize_t n = write(fd, rec.data, rec.len);
        if (n < 0) rc = -errno;
        else if ((size_t)n != rec.len) rc = -EIO;
    }
    ps_buf_free(&rec);
    return rc;
}

void ps_log_reader_init(ps_log_reader_t *r, const char *data, size_t len) {
    r->p = data;
    r->end = data + len;
    r->offset = 0;
}

int ps_log_next(ps_log_reader_t *r, ps_slice_t *payload) {
    size_t left = (size_t)(r->end - r->p);
    if (left == 0) return 0;
    if (left < PS_LOG_HEADER) return -EBADMSG;
    uint32_t len = ps_get_u32((const unsigned char *)r->p);
    uint32_t crc = ps_get_u32((const unsigned char *)r->p + 4);
    if (len > left - PS_LOG_HEADER) return -EBADMSG;
    const char *data = r->p + PS_LOG_HEADER;
    if (ps_crc32c(data, len) != crc) return -EBADMSG;
    *payload = ps_slice(data, len);
    r->p = data + len;
    r->offset += PS_LOG_HEADER + len;
    return 1;
}

int ps_log_read_file(const char *path, ps_log_record_fn fn, void *arg, size_t *good, size_t *total) {
    char *data = NULL;
    size_t len = 0;
    int rc = ps_env_read_file(path, &data, &len);
    if (rc != 0) return rc;
    ps_log_reader_t reader;
    ps_log_reader_init(&reader, data, len);
    ps_slice_t payload;
    while ((rc = ps_log_next(&reader, &payload)) == 1) {
        rc = fn(arg, payload);
        if (rc != 0) break;
    }
    *good = reader.offset;
    *total = len;
    free(data);
    return rc;
}
