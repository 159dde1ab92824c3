#include "env.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int ps_env_read_file(const char *path, char **data, size_t *len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int err = -errno;
        close(fd);
        return err;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    if (!buf) {
        close(fd);
        return -ENOMEM;
    }
    size_t done = 0;
    while (done < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + done, (size_t)st.st_size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += (size_t)n;
    }
    close(fd);
    buf[done] = '\0';
    *data = buf;
    *len = done;
    return 0;
}

int ps_env_fsync_dir(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -errno;
    int rc = fsync(fd) == 0 ? 0 : -errno;
    close(fd);
    return rc;
}

int ps_env_write_file_atomic(const char *dir, const char *name, const void *data, size_t len) {
    char tmp[4200], path[4200];
    snprintf(tmp, sizeof tmp, "%s/%s.tmp", dir, name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return -errno;
    int rc = 0;
    if (write(fd, data, len) != (ssize_t)len) rc = errno ? -errno : -EIO;
    if (rc == 0 && fsync(fd) != 0) rc = -errno;
    close(fd);
    if (rc == 0 && rename(tmp, path) != 0) rc = -errno;
    if (rc != 0) {
        unlink(tmp);
        return rc;
    }
    return ps_env_fsync_dir(dir);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int ps_env_list_numbered(const char *dir, const char *suffix, uint64_t **numbers, size_t *n) {
    DIR *d = opendir(dir);
    if (!d) return -errno;
    size_t count = 0, cap = 16;
    uint64_t *out = malloc(cap * sizeof *out);
    size_t suffix_len = strlen(suffix);
    struct dirent *e;
    while (out && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= suffix_len || strcmp(e->d_name + len - suffix_len, suffix) != 0) continue;
        size_t digits = strspn(e->d_name, "0123456789");
        if (digits != len - suffix_len) continue;
        if (count == cap) {
            uint64_t *grown = realloc(out, 2 * cap * sizeof *out);
            if (!grown) break;
            out = grown;
            cap *= 2;
        }
        out[count++] = strtoull(e->d_name, NULL, 10);
    }
    closedir(d);
    if (!out) return -ENOMEM;
    qsort(out, count, sizeof *out, cmp_u64);
    *numbers = out;
    *n = count;
    return 0;
}

void ps_env_table_path(char *buf, size_t len, const char *dir, uint64_t number) {
    snprintf(buf, len, "%s/%06" PRIu64 ".sst", dir, number);
}

void ps_env_wal_path(char *buf, size_t len, const char *dir, uint64_t segment) {
    snprintf(buf, len, "%s/%08" PRIu64 ".wal", dir, segment);
}

int ps_env_open_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n - 1; /* the descriptor of the listing itself */
}

long ps_env_rss_mb(void) {
    FILE *f = fopen("/proc/self/statm", "re");
    if (!f) return -1;
    long pages_total = 0, pages_resident = 0;
    int ok = fscanf(f, "%ld %ld", &pages_total, &pages_resident) == 2;
    fclose(f);
    if (!ok) return -1;
    return pages_resident * (sysconf(_SC_PAGESIZE) / 1024) / 1024;
}

uint64_t ps_env_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}
