#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pagestore.h"

int main(void) {
    char dir[] = "/tmp/pagestore-test-XXXXXX";
    assert(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/000007.sst", dir);
    FILE *f = fopen(path, "w");
    fputs("this is not a table, just some bytes that are long enough", f);
    fclose(f);
    ps_sstable_t *t = NULL;
    assert(ps_sst_open(dir, 7, &t) == -EBADMSG);
    assert(ps_sst_open(dir, 8, &t) == -ENOENT);
    unlink(path);
    rmdir(dir);
    puts("test_sstable passed");
    return 0;
}
