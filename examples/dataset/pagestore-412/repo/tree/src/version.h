/*
 * Which tables make up the database, by level, and the manifest that records every change
 * to that set. Level 0 holds flushed memtables, which may overlap, newest last; every other
 * level holds tables sorted by key with no overlap.
 *
 * The manifest (MANIFEST-<n>) is a log of version edits in the log_record.h framing; CURRENT
 * names the live manifest. A manifest that grows past PS_MANIFEST_ROLL_BYTES is replaced by a
 * new one that starts with a snapshot of the current version.
 */
#ifndef PS_VERSION_H
#define PS_VERSION_H

#include "coding.h"
#include "pagestore_db.h"

#define PS_MANIFEST_ROLL_BYTES (4u << 20)

typedef struct {
    uint64_t number;
    uint64_t size;
    ps_buf_t smallest; /* internal keys */
    ps_buf_t largest;
} ps_file_meta_t;

typedef struct {
    ps_file_meta_t *files;
    size_t n;
    size_t cap;
} ps_level_t;

typedef struct {
    int level;
    ps_file_meta_t meta;
} ps_new_file_t;

typedef struct {
    int level;
    uint64_t number;
} ps_deleted_file_t;

typedef struct {
    int has_log_number, has_next_file, has_last_seq;
    uint64_t log_number; /* WAL segments below this one are no longer needed */
    uint64_t next_file;
    uint64_t last_seq;
    ps_new_file_t *added;
    size_t n_added;
    ps_deleted_file_t *deleted;
    size_t n_deleted;
} ps_version_edit_t;

void ps_edit_init(ps_version_edit_t *e);
void ps_edit_free(ps_version_edit_t *e);
int ps_edit_add_file(ps_version_edit_t *e, int level, uint64_t number, uint64_t size, ps_slice_t smallest,
                     ps_slice_t largest);
int ps_edit_delete_file(ps_version_edit_t *e, int level, uint64_t number);
int ps_edit_encode(const ps_version_edit_t *e, ps_buf_t *out);
int ps_edit_decode(ps_slice_t in, ps_version_edit_t *e);

typedef struct {
    char dir[4096];
    ps_level_t levels[PS_NUM_LEVELS];
    uint64_t next_file;
    uint64_t last_seq; /* the newest sequence number in a table */
    uint64_t log_number;
    uint64_t manifest_number;
    uint64_t manifest_bytes;
    int manifest_fd;
} ps_versions_t;

/* Loads CURRENT and replays its manifest; an empty directory starts a new database. */
int ps_versions_recover(ps_versions_t *vs, const char *dir);
/* Fills in next_file, appends the edit to the manifest, syncs, applies it. Only flushes set
 * last_seq: it is the last sequence number stored in a table, not the last one written. */
int ps_versions_log_and_apply(ps_versions_t *vs, ps_version_edit_t *e);
uint64_t ps_versions_new_file_number(ps_versions_t *vs);
uint64_t ps_versions_level_bytes(const ps_versions_t *vs, int level);
void ps_versions_close(ps_versions_t *vs);

/* True when the user-key ranges of a file and [smallest, largest] overlap. */
int ps_file_overlaps(const ps_file_meta_t *f, ps_slice_t smallest_user, ps_slice_t largest_user);

#endif
