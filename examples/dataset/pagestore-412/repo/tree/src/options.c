/* Database options: defaults, a "key = value" file format, and validation. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "pagestore_db.h"

void ps_options_defaults(ps_options_t *o) {
    memset(o, 0, sizeof *o);
    snprintf(o->dir, sizeof o->dir, "%s", "/var/lib/pagestore");
    o->table_cache_capacity = 512;
    o->buffer_pool_frames = 4096;
    o->block_size = 4096;
    o->wal_segment_bytes = 64u << 20;
    o->memtable_bytes = 8u << 20;
    o->l0_compaction_trigger = 4;
    o->level1_bytes = 64u << 20;
    o->compaction_retry_ms = 5000;
    o->sync_writes = 1;
    o->stats_interval_ms = 10 * 60 * 1000;
}

/* "4096", "64k", "8m", "1g" (binary units). */
static int parse_size(const char *s, uint64_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) return -EINVAL;
    uint64_t mult = 1;
    switch (tolower((unsigned char)*end)) {
    case '\0': break;
    case 'k': mult = 1ull << 10; end++; break;
    case 'm': mult = 1ull << 20; end++; break;
    case 'g': mult = 1ull << 30; end++; break;
    default: return -EINVAL;
    }
    if (*end != '\0' && strcasecmp(end, "ib") != 0 && strcasecmp(end, "b") != 0) return -EINVAL;
    if (v > UINT64_MAX / mult) return -ERANGE;
    *out = v * mult;
    return 0;
}

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1])) *--end = '\0';
    return s;
}

static int set_option(ps_options_t *o, const char *key, const char *value) {
    uint64_t v = 0;
    if (strcmp(key, "dir") == 0) {
        if (strlen(value) >= sizeof o->dir) return -ENAMETOOLONG;
        snprintf(o->dir, sizeof o->dir, "%s", value);
        return 0;
    }
    int rc = parse_size(value, &v);
    if (rc != 0) return rc;
    if (strcmp(key, "table_cache_capacity") == 0) o->table_cache_capacity = (size_t)v;
    else if (strcmp(key, "buffer_pool_frames") == 0) o->buffer_pool_frames = (size_t)v;
    else if (strcmp(key, "block_size") == 0) o->block_size = (uint32_t)v;
    else if (strcmp(key, "wal_segment_bytes") == 0) o->wal_segment_bytes = v;
    else if (strcmp(key, "memtable_bytes") == 0) o->memtable_bytes = v;
    else if (strcmp(key, "l0_compaction_trigger") == 0) o->l0_compaction_trigger = (int)v;
    else if (strcmp(key, "level1_bytes") == 0) o->level1_bytes = v;
    else if (strcmp(key, "compaction_retry_ms") == 0) o->compaction_retry_ms = v;
    else if (strcmp(key, "sync_writes") == 0) o->sync_writes = v != 0;
    else if (strcmp(key, "stats_interval_ms") == 0) o->stats_interval_ms = v;
    else return -ENOENT;
    return 0;
}

int ps_options_parse(ps_options_t *o, const char *text, char *err, size_t errlen) {
    char *copy = strdup(text);
    if (!copy) return -ENOMEM;
    int rc = 0, line_no = 0;
    char *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line && rc == 0; line = strtok_r(NULL, "\n", &save)) {
        line_no++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *s = trim(line);
        if (*s == '\0') continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(err, errlen, "line %d: expected key = value", line_no);
            rc = -EINVAL;
            break;
        }
        *eq = '\0';
        char *key = trim(s), *value = trim(eq + 1);
        rc = set_option(o, key, value);
        if (rc == -ENOENT) snprintf(err, errlen, "line %d: unknown option \"%s\"", line_no, key);
        else if (rc != 0) snprintf(err, errlen, "line %d: bad value \"%s\" for %s", line_no, value, key);
    }
    free(copy);
    return rc;
}

int ps_options_load(ps_options_t *o, const char *path, char *err, size_t errlen) {
    char *text = NULL;
    size_t len = 0;
    int rc = ps_env_read_file(path, &text, &len);
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(-rc));
        return rc;
    }
    rc = ps_options_parse(o, text, err, errlen);
    free(text);
    return rc;
}

static int invalid(char *err, size_t errlen, const char *what) {
    snprintf(err, errlen, "%s", what);
    return -EINVAL;
}

int ps_options_validate(const ps_options_t *o, char *err, size_t errlen) {
    if (o->dir[0] == '\0') return invalid(err, errlen, "dir is empty");
    if (o->block_size < 256 || o->block_size > (1u << 20))
        return invalid(err, errlen, "block_size must be between 256 and 1m");
    /* A compaction holds up to 16 inputs from the cache at once; none may evict another. */
    if (o->table_cache_capacity < 32) return invalid(err, errlen, "table_cache_capacity must be at least 32");
    if (o->buffer_pool_frames < 16) return invalid(err, errlen, "buffer_pool_frames must be at least 16");
    if (o->wal_segment_bytes < (1u << 20))
        return invalid(err, errlen, "wal_segment_bytes must be at least 1m");
    if (o->memtable_bytes < (64u << 10) || o->memtable_bytes > o->wal_segment_bytes * 16)
        return invalid(err, errlen, "memtable_bytes must be between 64k and 16 log segments");
    if (o->l0_compaction_trigger < 2 || o->l0_compaction_trigger > 12)
        return invalid(err, errlen, "l0_compaction_trigger must be between 2 and 12");
    if (o->compaction_retry_ms == 0) return invalid(err, errlen, "compaction_retry_ms must be positive");
    return 0;
}
