/* File system helpers and process facts used by the database and its tools. */
#ifndef PS_ENV_H
#define PS_ENV_H

#include <stddef.h>
#include <stdint.h>

/* Reads a whole file into a malloc'ed buffer (NUL-terminated for text files). */
int ps_env_read_file(const char *path, char **data, size_t *len);

/* Replaces dir/name with data: writes dir/name.tmp, syncs it, renames it, syncs dir. */
int ps_env_write_file_atomic(const char *dir, const char *name, const void *data, size_t len);

int ps_env_fsync_dir(const char *dir);

/* Numbers of the files in dir named "<digits><suffix>", ascending. *numbers is malloc'ed. */
int ps_env_list_numbered(const char *dir, const char *suffix, uint64_t **numbers, size_t *n);

/* dir/000123.sst and dir/00000042.wal */
void ps_env_table_path(char *buf, size_t len, const char *dir, uint64_t number);
void ps_env_wal_path(char *buf, size_t len, const char *dir, uint64_t segment);

/* Descriptors open in this process (entries of /proc/self/fd), or -1. */
int ps_env_open_fds(void);
/* Resident set size in MiB (from /proc/self/statm), or -1. */
long ps_env_rss_mb(void);

uint64_t ps_env_now_ms(void);

#endif
