/* The record framing of the write-ahead log (written by wal.c) and of the manifest:
 *   length (4) | CRC-32C of the payload (4) | payload, big-endian. */
#ifndef PS_LOG_RECORD_H
#define PS_LOG_RECORD_H

#include "coding.h"

#define PS_LOG_HEADER 8

/* Appends one record with a single write so a crash leaves at most one torn record. */
int ps_log_append(int fd, ps_slice_t payload);

typedef struct {
    const char *p;
    const char *end;
    size_t offset; /* of the next record, for messages */
} ps_log_reader_t;

void ps_log_reader_init(ps_log_reader_t *r, const char *data, size_t len);

/* 1 with the next payload, 0 at a clean end, -EBADMSG when the rest is not a whole valid
 * record (a torn tail or damage; the caller decides which it can tolerate). */
int ps_log_next(ps_log_reader_t *r, ps_slice_t *payload);

typedef int (*ps_log_record_fn)(void *arg, ps_slice_t payload);

/* Reads a whole file of records and calls fn for each until fn fails or the records end.
 * Returns fn's error, -EBADMSG when a bad record ended the file early, or 0; *good gets the
 * bytes of whole records read and *total the file size, so the caller can tell a torn tail. */
int ps_log_read_file(const char *path, ps_log_record_fn fn, void *arg, size_t *good, size_t *total);

#endif
