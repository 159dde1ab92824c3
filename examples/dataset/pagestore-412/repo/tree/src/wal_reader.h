/* Recovery from the write-ahead log that wal.c writes. */
#ifndef PS_WAL_READER_H
#define PS_WAL_READER_H

#include "coding.h"

typedef int (*ps_wal_record_fn)(void *arg, uint64_t segment, ps_slice_t record);

typedef struct {
    size_t segments;
    uint64_t records;
    uint64_t bytes;
    uint64_t last_segment;
    uint64_t torn_bytes; /* cut from the tail of the last segment */
} ps_wal_replay_stats_t;

/*
 * Replays the records of every segment in dir numbered >= first_segment, oldest first. A
 * record that is cut short or fails its crc ends the replay: in the last segment that is the
 * tail a crash left behind and is ignored; in an earlier segment records after it would be
 * lost, so the replay fails with -EBADMSG and the database refuses to open.
 */
int ps_wal_replay(const char *dir, uint64_t first_segment, ps_wal_record_fn fn, void *arg,
                  ps_wal_replay_stats_t *stats);

/* Removes every segment numbered below `below` (all of them for UINT64_MAX). */
int ps_wal_remove_segments(const char *dir, uint64_t below);

#endif
