/* Encoding of version edits: a sequence of tagged fields, each tag a varint. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "version.h"

enum {
    TAG_LOG_NUMBER = 1,
    TAG_NEXT_FILE = 2,
    TAG_LAST_SEQ = 3,
    TAG_DELETED_FILE = 4,
    TAG_NEW_FILE = 5,
};

void ps_edit_init(ps_version_edit_t *e) { memset(e, 0, sizeof *e); }

void ps_edit_free(ps_version_edit_t *e) {
    for (size_t i = 0; i < e->n_added; i++) {
        ps_buf_free(&e->added[i].meta.smallest);
        ps_buf_free(&e->added[i].meta.largest);
    }
    free(e->added);
    free(e->deleted);
    ps_edit_init(e);
}

int ps_edit_add_file(ps_version_edit_t *e, int level, uint64_t number, uint64_t size, ps_slice_t smallest,
                     ps_slice_t largest) {
    ps_new_file_t *grown = realloc(e->added, (e->n_added + 1) * sizeof *grown);
    if (!grown) return -ENOMEM;
    e->added = grown;
    ps_new_file_t *f = &e->added[e->n_added];
    memset(f, 0, sizeof *f);
    f->level = level;
    f->meta.number = number;
    f->meta.size = size;
    if (ps_buf_set(&f->meta.smallest, smallest) != 0 || ps_buf_set(&f->meta.largest, largest) != 0) {
        ps_buf_free(&f->meta.smallest);
        return -ENOMEM;
    }
    e->n_added++;
    return 0;
}

int ps_edit_delete_file(ps_version_edit_t *e, int level, uint64_t number) {
    ps_deleted_file_t *grown = realloc(e->deleted, (e->n_deleted + 1) * sizeof *grown);
    if (!grown) return -ENOMEM;
    e->deleted = grown;
    e->deleted[e->n_deleted++] = (ps_deleted_file_t){.level = level, .number = number};
    return 0;
}

int ps_edit_encode(const ps_version_edit_t *e, ps_buf_t *out) {
    int rc = 0;
    out->len = 0;
    if (e->has_log_number) {
        rc = ps_buf_put_varint(out, TAG_LOG_NUMBER);
        if (rc == 0) rc = ps_buf_put_varint(out, e->log_number);
    }
    if (rc == 0 && e->has_next_file) {
        rc = ps_buf_put_varint(out, TAG_NEXT_FILE);
        if (rc == 0) rc = ps_buf_put_varint(out, e->next_file);
    }
    if (rc == 0 && e->has_last_seq) {
        rc = ps_buf_put_varint(out, TAG_LAST_SEQ);
        if (rc == 0) rc = ps_buf_put_varint(out, e->last_seq);
    }
    for (size_t i = 0; rc == 0 && i < e->n_deleted; i++) {
        rc = ps_buf_put_varint(out, TAG_DELETED_FILE);
        if (rc == 0) rc = ps_buf_put_varint(out, (uint64_t)e->deleted[i].level);
        if (rc == 0) rc = ps_buf_put_varint(out, e->deleted[i].number);
    }
    for (size_t i = 0; rc == 0 && i < e->n_added; i++) {
        const ps_new_file_t *f = &e->added[i];
        rc = ps_buf_put_varint(out, TAG_NEW_FILE);
        if (rc == 0) rc = ps_buf_put_varint(out, (uint64_t)f->level);
        if (rc == 0) rc = ps_buf_put_varint(out, f->meta.number);
        if (rc == 0) rc = ps_buf_put_varint(out, f->meta.size);
        if (rc == 0) rc = ps_buf_put_lp(out, ps_buf_slice(&f->meta.smallest));
        if (rc == 0) rc = ps_buf_put_lp(out, ps_buf_slice(&f->meta.largest));
    }
    return rc;
}

static int decode_level(const char **p, const char *end, int *level) {
    uint64_t v;
    if (ps_get_varint(p, end, &v) != 0 || v >= PS_NUM_LEVELS) return -EBADMSG;
    *level = (int)v;
    return 0;
}

static int decode_new_file(const char **p, const char *end, ps_version_edit_t *e) {
    int level;
    uint64_t number, size;
    ps_slice_t smallest, largest;
    if (decode_level(p, end, &level) || ps_get_varint(p, end, &number) || ps_get_varint(p, end, &size) ||
        ps_get_lp(p, end, &smallest) || ps_get_lp(p, end, &largest) || smallest.len < 8 || largest.len < 8)
        return -EBADMSG;
    return ps_edit_add_file(e, level, number, size, smallest, largest);
}

int ps_edit_decode(ps_slice_t in, ps_version_edit_t *e) {
    const char *p = in.data, *end = in.data + in.len;
    ps_edit_init(e);
    while (p < end) {
        uint64_t tag;
        int rc = ps_get_varint(&p, end, &tag);
        int level;
        uint64_t number;
        switch (rc == 0 ? tag : 0) {
        case TAG_LOG_NUMBER:
            e->has_log_number = 1;
            rc = ps_get_varint(&p, end, &e->log_number);
            break;
        case TAG_NEXT_FILE:
            e->has_next_file = 1;
            rc = ps_get_varint(&p, end, &e->next_file);
            break;
        case TAG_LAST_SEQ:
            e->has_last_seq = 1;
            rc = ps_get_varint(&p, end, &e->last_seq);
            break;
        case TAG_DELETED_FILE:
            rc = decode_level(&p, end, &level);
            if (rc == 0) rc = ps_get_varint(&p, end, &number);
            if (rc == 0) rc = ps_edit_delete_file(e, level, number);
            break;
        case TAG_NEW_FILE:
            rc = decode_new_file(&p, end, e);
            break;
        default:
            rc = -EBADMSG;
        }
        if (rc != 0) {
            ps_edit_free(e);
            return rc == -ENOMEM ? rc : -EBADMSG;
        }
    }
    return 0;
}
