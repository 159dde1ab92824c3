/* The database end to end: writes, reads, deletes, recovery and compaction. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pagestore_db.h"

static ps_options_t small_options(const char *dir) {
    ps_options_t o;
    char err[128];
    ps_options_defaults(&o);
    assert(ps_options_parse(&o,
                            "# tiny tables so a few thousand keys exercise flushes and compactions\n"
                            "block_size = 512\n"
                            "memtable_bytes = 64k\n"
                            "l0_compaction_trigger = 2\n"
                            "level1_bytes = 1m\n"
                            "sync_writes = 0\n",
                            err, sizeof err) == 0);
    snprintf(o.dir, sizeof o.dir, "%s", dir);
    assert(ps_options_validate(&o, err, sizeof err) == 0);
    assert(ps_options_parse(&o, "block_size = lots\n", err, sizeof err) == -EINVAL);
    assert(strstr(err, "line 1") != NULL);
    return o;
}

static int get_int(ps_db_t *db, int i) {
    char key[32], *val = NULL;
    size_t len = 0;
    snprintf(key, sizeof key, "user:%05d", i);
    int rc = ps_db_get(db, key, strlen(key), &val, &len);
    if (rc != 0) return rc;
    int v = atoi(val + 6);
    free(val);
    return v;
}

static void write_all(ps_db_t *db, int n, int generation) {
    for (int i = 0; i < n; i++) {
        char key[32], val[64];
        snprintf(key, sizeof key, "user:%05d", i);
        int len = snprintf(val, sizeof val, "value %d generation %d padding-padding-padding", i * 10 + generation,
                           generation);
        assert(ps_db_put(db, key, strlen(key), val, (size_t)len) == 0);
    }
}

int main(void) {
    char dir[] = "/tmp/pagestore-db-XXXXXX";
    assert(mkdtemp(dir));
    ps_options_t o = small_options(dir);
    ps_db_t *db = NULL;
    assert(ps_db_open(&o, NULL, &db) == 0);
    write_all(db, 3000, 1);
    write_all(db, 3000, 2);
    assert(ps_db_delete(db, "user:00042", 10) == 0);
    for (uint64_t t = 1; t <= 20; t++) ps_db_maintain(db, t * 10000);
    ps_stats_t s;
    ps_db_stats(db, &s);
    assert(s.flushes > 2 && s.compactions > 0 && s.compaction_failures == 0);
    assert(get_int(db, 7) == 72 && get_int(db, 2999) == 29992);
    assert(get_int(db, 42) == -ENOENT);

    /* Close without a flush: the last writes live only in the log. */
    assert(ps_db_put(db, "user:99999", 10, "value 5", 7) == 0);
    ps_db_close(db);
    assert(ps_db_open(&o, NULL, &db) == 0);
    assert(get_int(db, 99999) == 5 && get_int(db, 1234) == 12342 && get_int(db, 42) == -ENOENT);

    ps_db_iter_t *it = ps_db_iter_new(db);
    int n = 0;
    size_t klen;
    for (ps_db_iter_seek(it, "user:00040", 10); ps_db_iter_valid(it) && n < 3; ps_db_iter_next(it), n++) {
        const char *k = ps_db_iter_key(it, &klen);
        assert(strncmp(k, n == 0 ? "user:00040" : n == 1 ? "user:00041" : "user:00043", klen) == 0);
    }
    assert(ps_db_iter_status(it) == 0);
    ps_db_iter_free(it);
    ps_db_close(db);

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert(system(cmd) == 0);
    puts("test_db passed");
    return 0;
}
