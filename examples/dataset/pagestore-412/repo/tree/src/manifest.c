/* The version set: the live tables by level, recovered from and recorded in the manifest. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "log_record.h"
#include "version.h"

static void manifest_name(char *buf, size_t len, uint64_t number) {
    snprintf(buf, len, "MANIFEST-%06" PRIu64, number);
}

static void free_meta(ps_file_meta_t *f) {
    ps_buf_free(&f->smallest);
    ps_buf_free(&f->largest);
}

static int cmp_by_number(const void *a, const void *b) {
    const ps_file_meta_t *x = a, *y = b;
    return x->number < y->number ? -1 : x->number > y->number;
}

static int cmp_by_smallest(const void *a, const void *b) {
    const ps_file_meta_t *x = a, *y = b;
    return ps_ikey_cmp(ps_buf_slice(&x->smallest), ps_buf_slice(&y->smallest));
}

static int level_add(ps_level_t *l, const ps_file_meta_t *src) {
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        ps_file_meta_t *grown = realloc(l->files, cap * sizeof *grown);
        if (!grown) return -ENOMEM;
        l->files = grown;
        l->cap = cap;
    }
    ps_file_meta_t *f = &l->files[l->n];
    memset(f, 0, sizeof *f);
    f->number = src->number;
    f->size = src->size;
    if (ps_buf_set(&f->smallest, ps_buf_slice(&src->smallest)) != 0 ||
        ps_buf_set(&f->largest, ps_buf_slice(&src->largest)) != 0) {
        free_meta(f);
        return -ENOMEM;
    }
    l->n++;
    return 0;
}

static void level_remove(ps_level_t *l, uint64_t number) {
    for (size_t i = 0; i < l->n; i++) {
        if (l->files[i].number != number) continue;
        free_meta(&l->files[i]);
        memmove(&l->files[i], &l->files[i + 1], (l->n - i - 1) * sizeof l->files[0]);
        l->n--;
        return;
    }
}

static int apply(ps_versions_t *vs, const ps_version_edit_t *e) {
    for (size_t i = 0; i < e->n_deleted; i++) level_remove(&vs->levels[e->deleted[i].level], e->deleted[i].number);
    for (size_t i = 0; i < e->n_added; i++) {
        int rc = level_add(&vs->levels[e->added[i].level], &e->added[i].meta);
        if (rc != 0) return rc;
        if (e->added[i].meta.number >= vs->next_file) vs->next_file = e->added[i].meta.number + 1;
    }
    for (int level = 0; level < PS_NUM_LEVELS; level++) {
        ps_level_t *l = &vs->levels[level];
        if (l->n > 1) qsort(l->files, l->n, sizeof l->files[0], level == 0 ? cmp_by_number : cmp_by_smallest);
    }
    if (e->has_log_number) vs->log_number = e->log_number;
    if (e->has_next_file && e->next_file > vs->next_file) vs->next_file = e->next_file;
    if (e->has_last_seq && e->last_seq > vs->last_seq) vs->last_seq = e->last_seq;
    return 0;
}

/* An edit that rebuilds the whole current version, the first record of a new manifest. */
static int snapshot_edit(const ps_versions_t *vs, ps_version_edit_t *e) {
    ps_edit_init(e);
    e->has_log_number = e->has_next_file = e->has_last_seq = 1;
    e->log_number = vs->log_number;
    e->next_file = vs->next_file;
    e->last_seq = vs->last_seq;
    for (int level = 0; level < PS_NUM_LEVELS; level++) {
        for (size_t i = 0; i < vs->levels[level].n; i++) {
            const ps_file_meta_t *f = &vs->levels[level].files[i];
            int rc = ps_edit_add_file(e, level, f->number, f->size, ps_buf_slice(&f->smallest),
                                      ps_buf_slice(&f->largest));
            if (rc != 0) return rc;
        }
    }
    return 0;
}

static int append_edit(int fd, const ps_version_edit_t *e, uint64_t *bytes) {
    ps_buf_t rec = {0};
    int rc = ps_edit_encode(e, &rec);
    if (rc == 0) rc = ps_log_append(fd, ps_buf_slice(&rec));
    if (rc == 0 && fdatasync(fd) != 0) rc = -errno;
    if (rc == 0) *bytes += PS_LOG_HEADER + rec.len;
    ps_buf_free(&rec);
    return rc;
}

/* Starts manifest `number` with a snapshot and points CURRENT at it. */
static int start_manifest(ps_versions_t *vs, uint64_t number) {
    char name[64], path[4200];
    manifest_name(name, sizeof name, number);
    snprintf(path, sizeof path, "%s/%s", vs->dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return -errno;
    ps_version_edit_t snap;
    uint64_t bytes = 0;
    int rc = snapshot_edit(vs, &snap);
    if (rc == 0) rc = append_edit(fd, &snap, &bytes);
    ps_edit_free(&snap);
    char current[80];
    int n = snprintf(current, sizeof current, "%s\n", name);
    if (rc == 0) rc = ps_env_write_file_atomic(vs->dir, "CURRENT", current, (size_t)n);
    if (rc != 0) {
        close(fd);
        unlink(path);
        return rc;
    }
    if (vs->manifest_fd >= 0) {
        char old[4200], old_name[64];
        manifest_name(old_name, sizeof old_name, vs->manifest_number);
        snprintf(old, sizeof old, "%s/%s", vs->dir, old_name);
        close(vs->manifest_fd);
        unlink(old);
    }
    vs->manifest_fd = fd;
    vs->manifest_number = number;
    vs->manifest_bytes = bytes;
    return 0;
}

static int replay_edit(void *arg, ps_slice_t record) {
    ps_version_edit_t e;
    int rc = ps_edit_decode(record, &e);
    if (rc == 0) rc = apply(arg, &e);
    ps_edit_free(&e);
    return rc;
}

static int replay_manifest(ps_versions_t *vs, const char *path) {
    size_t good = 0, total = 0;
    int rc = ps_log_read_file(path, replay_edit, vs, &good, &total);
    /* Every edit is synced before it is used, so a torn record at the end was never acted on. */
    if (rc == -EBADMSG && good > 0) rc = 0;
    vs->manifest_bytes = good;
    return rc;
}

int ps_versions_recover(ps_versions_t *vs, const char *dir) {
    memset(vs, 0, sizeof *vs);
    snprintf(vs->dir, sizeof vs->dir, "%s", dir);
    vs->manifest_fd = -1;
    vs->next_file = 2;
    char path[4200], *current = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/CURRENT", dir);
    int rc = ps_env_read_file(path, &current, &len);
    if (rc == -ENOENT) return start_manifest(vs, 1);
    if (rc != 0) return rc;
    uint64_t number = 0;
    if (sscanf(current, "MANIFEST-%" SCNu64, &number) != 1) rc = -EBADMSG;
    free(current);
    if (rc != 0) return rc;
    char name[64];
    manifest_name(name, sizeof name, number);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    rc = replay_manifest(vs, path);
    if (rc != 0) return rc;
    vs->manifest_number = number;
    if (number >= vs->next_file) vs->next_file = number + 1;
    vs->manifest_fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    return vs->manifest_fd < 0 ? -errno : 0;
}

uint64_t ps_versions_new_file_number(ps_versions_t *vs) { return vs->next_file++; }

int ps_versions_log_and_apply(ps_versions_t *vs, ps_version_edit_t *e) {
    e->has_next_file = 1;
    e->next_file = vs->next_file;
    int rc = 0;
    if (vs->manifest_bytes >= PS_MANIFEST_ROLL_BYTES) rc = start_manifest(vs, ps_versions_new_file_number(vs));
    if (rc == 0) rc = append_edit(vs->manifest_fd, e, &vs->manifest_bytes);
    return rc == 0 ? apply(vs, e) : rc;
}

uint64_t ps_versions_level_bytes(const ps_versions_t *vs, int level) {
    uint64_t total = 0;
    for (size_t i = 0; i < vs->levels[level].n; i++) total += vs->levels[level].files[i].size;
    return total;
}

void ps_versions_close(ps_versions_t *vs) {
    for (int level = 0; level < PS_NUM_LEVELS; level++) {
        for (size_t i = 0; i < vs->levels[level].n; i++) free_meta(&vs->levels[level].files[i]);
        free(vs->levels[level].files);
        vs->levels[level] = (ps_level_t){0};
    }
    if (vs->manifest_fd >= 0) close(vs->manifest_fd);
    vs->manifest_fd = -1;
}

int ps_file_overlaps(const ps_file_meta_t *f, ps_slice_t smallest_user, ps_slice_t largest_user) {
    return ps_slice_cmp(ps_ikey_user(ps_buf_slice(&f->largest)), smallest_user) >= 0 &&
           ps_slice_cmp(ps_ikey_user(ps_buf_slice(&f->smallest)), largest_user) <= 0;
}
