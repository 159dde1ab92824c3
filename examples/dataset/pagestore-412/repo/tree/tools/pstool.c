/* pstool: inspect and repair-check a pagestore directory.
 *
 *   pstool manifest <dir>            levels and tables of the live manifest
 *   pstool dump <dir> <table>        every entry of one table
 *   pstool check <dir>               open every live table and verify every block
 *   pstool wal <dir>                 records of the write-ahead log segments
 *   pstool get <dir> <key>           look a key up (opens the database)
 *   pstool stats <dir>               open the database and print its statistics
 *   pstool compact <dir>             run compactions until none is due
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "env.h"
#include "log_record.h"
#include "pagestore_db.h"
#include "table.h"
#include "version.h"
#include "wal_reader.h"
#include "write_batch.h"

static void log_stderr(const char *level, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "%-5s ", level);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* Keys and values are binary; show printable bytes and escape the rest. */
static void print_escaped(ps_slice_t s, size_t max) {
    for (size_t i = 0; i < s.len && i < max; i++) {
        unsigned char c = (unsigned char)s.data[i];
        if (c >= 0x20 && c < 0x7f && c != '\\') putchar(c);
        else printf("\\x%02x", c);
    }
    if (s.len > max) printf("...(%zu bytes)", s.len);
}

static int fail(const char *what, int rc) {
    fprintf(stderr, "pstool: %s: %s\n", what, strerror(-rc));
    return 1;
}

static int cmd_manifest(const char *dir) {
    ps_versions_t vs;
    int rc = ps_versions_recover(&vs, dir);
    if (rc != 0) return fail("manifest", rc);
    printf("manifest %06" PRIu64 ", next file %" PRIu64 ", last sequence %" PRIu64 ", log from segment %08" PRIu64 "\n",
           vs.manifest_number, vs.next_file, vs.last_seq, vs.log_number);
    for (int level = 0; level < PS_NUM_LEVELS; level++) {
        const ps_level_t *l = &vs.levels[level];
        if (l->n == 0) continue;
        printf("level %d: %zu tables, %" PRIu64 " bytes\n", level, l->n, ps_versions_level_bytes(&vs, level));
        for (size_t i = 0; i < l->n; i++) {
            printf("  %06" PRIu64 " %10" PRIu64 " bytes  [", l->files[i].number, l->files[i].size);
            print_escaped(ps_ikey_user(ps_buf_slice(&l->files[i].smallest)), 32);
            printf(" .. ");
            print_escaped(ps_ikey_user(ps_buf_slice(&l->files[i].largest)), 32);
            printf("]\n");
        }
    }
    ps_versions_close(&vs);
    return 0;
}

static int cmd_dump(const char *dir, uint64_t number) {
    ps_sstable_t *t = NULL;
    int rc = ps_sst_open(dir, number, &t);
    if (rc != 0) return fail("open table", rc);
    printf("table %06" PRIu64 ": %" PRIu64 " bytes, %u blocks\n", number, t->file_size, t->n_blocks);
    ps_iter_t *it = ps_table_iter_new(t, NULL);
    uint64_t entries = 0;
    for (ps_iter_seek_first(it); ps_iter_valid(it); ps_iter_next(it), entries++) {
        ps_slice_t k = ps_iter_key(it);
        printf("%s @%" PRIu64 " ", ps_ikey_type(k) == PS_TYPE_VALUE ? "put" : "del", ps_ikey_seq(k));
        print_escaped(ps_ikey_user(k), 64);
        printf(" => ");
        print_escaped(ps_iter_value(it), 64);
        putchar('\n');
    }
    rc = ps_iter_status(it);
    ps_iter_destroy(it);
    ps_sst_close(t);
    printf("%" PRIu64 " entries\n", entries);
    return rc == 0 ? 0 : fail("read", rc);
}

/* Reads every block of one table and checks its trailer. */
static int check_table(const char *dir, uint64_t number) {
    ps_sstable_t *t = NULL;
    int rc = ps_sst_open(dir, number, &t);
    if (rc != 0) return rc;
    char *buf = NULL;
    for (uint32_t b = 0; b < t->n_blocks && rc == 0; b++) {
        size_t need = (size_t)(t->block_offsets[b + 1] - t->block_offsets[b]), len = 0;
        char *grown = realloc(buf, need ? need : 1);
        if (!grown) rc = -ENOMEM;
        else buf = grown;
        ps_block_t block;
        if (rc == 0) rc = ps_sst_read_block(t, b, buf, need, &len);
        if (rc == 0) rc = ps_block_parse(buf, len, &block);
        if (rc != 0) printf("  %06" PRIu64 " block %u: %s\n", number, b, strerror(-rc));
    }
    free(buf);
    ps_sst_close(t);
    return rc;
}

static int cmd_check(const char *dir) {
    ps_versions_t vs;
    int rc = ps_versions_recover(&vs, dir);
    if (rc != 0) return fail("manifest", rc);
    size_t tables = 0, bad = 0;
    for (int level = 0; level < PS_NUM_LEVELS; level++) {
        for (size_t i = 0; i < vs.levels[level].n; i++, tables++) {
            uint64_t number = vs.levels[level].files[i].number;
            int trc = check_table(dir, number);
            if (trc == 0) continue;
            printf("level %d table %06" PRIu64 ": %s\n", level, number, strerror(-trc));
            bad++;
        }
    }
    ps_versions_close(&vs);
    printf("%zu tables checked, %zu damaged\n", tables, bad);
    return bad == 0 ? 0 : 2;
}

static int print_entry(void *arg, uint64_t seq, int type, ps_slice_t key, ps_slice_t value) {
    (void)arg;
    printf("  @%" PRIu64 " %s ", seq, type == PS_TYPE_VALUE ? "put" : "del");
    print_escaped(key, 48);
    if (type == PS_TYPE_VALUE) printf(" (%zu bytes)", value.len);
    putchar('\n');
    return 0;
}

static int print_record(void *arg, uint64_t segment, ps_slice_t record) {
    (void)arg;
    printf("segment %08" PRIu64 " record of %zu bytes\n", segment, record.len);
    return ps_batch_replay(record, print_entry, NULL, NULL);
}

static int cmd_wal(const char *dir) {
    ps_wal_replay_stats_t stats;
    int rc = ps_wal_replay(dir, 0, print_record, NULL, &stats);
    printf("%zu segments, %" PRIu64 " records, %" PRIu64 " torn bytes at the end\n", stats.segments, stats.records,
           stats.torn_bytes);
    return rc == 0 ? 0 : fail("log", rc);
}

static int open_db(const char *dir, ps_db_t **db) {
    ps_options_t o;
    ps_options_defaults(&o);
    snprintf(o.dir, sizeof o.dir, "%s", dir);
    int rc = ps_db_open(&o, log_stderr, db);
    if (rc != 0) fail("open", rc);
    return rc;
}

static int cmd_get(const char *dir, const char *key) {
    ps_db_t *db;
    if (open_db(dir, &db) != 0) return 1;
    char *val = NULL;
    size_t len = 0;
    int rc = ps_db_get(db, key, strlen(key), &val, &len);
    if (rc == 0) {
        print_escaped(ps_slice(val, len), 4096);
        putchar('\n');
        free(val);
    }
    ps_db_close(db);
    return rc == 0 ? 0 : fail(key, rc);
}

static int cmd_stats(const char *dir, int compact) {
    ps_db_t *db;
    if (open_db(dir, &db) != 0) return 1;
    ps_stats_t s;
    if (compact) {
        /* Ticks with a clock far enough apart that every retry is due. */
        for (uint64_t now = 1; now < 64; now++) {
            ps_db_maintain(db, now * 3600 * 1000);
            ps_db_stats(db, &s);
            if (s.pending_compactions == 0) break;
        }
    }
    char report[2048];
    ps_db_stats(db, &s);
    ps_stats_report(&s, report, sizeof report);
    fputs(report, stdout);
    ps_db_close(db);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "manifest") == 0) return cmd_manifest(argv[2]);
    if (argc == 4 && strcmp(argv[1], "dump") == 0) return cmd_dump(argv[2], strtoull(argv[3], NULL, 10));
    if (argc == 3 && strcmp(argv[1], "check") == 0) return cmd_check(argv[2]);
    if (argc == 3 && strcmp(argv[1], "wal") == 0) return cmd_wal(argv[2]);
    if (argc == 4 && strcmp(argv[1], "get") == 0) return cmd_get(argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "stats") == 0) return cmd_stats(argv[2], 0);
    if (argc == 3 && strcmp(argv[1], "compact") == 0) return cmd_stats(argv[2], 1);
    fprintf(stderr, "usage: pstool manifest|check|wal|stats|compact <dir>\n"
                    "       pstool dump <dir> <table number>\n"
                    "       pstool get <dir> <key>\n");
    return 2;
}
