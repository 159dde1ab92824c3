/* swimctl: asks a running swimd through its control socket.
 *
 *   swimctl [-s /run/swimd.sock] members
 *   swimctl [-s /run/swimd.sock] stats
 *   swimctl [-s /run/swimd.sock] event <name> [payload]
 *   swimctl [-s /run/swimd.sock] leave
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int usage(void) {
    fprintf(stderr, "usage: swimctl [-s socket] members|stats|leave\n"
                    "       swimctl [-s socket] event <name> [payload]\n");
    return 2;
}

static int connect_to(const char *path) {
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path) return -ENAMETOOLONG;
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) return -errno;
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        int rc = -errno;
        close(fd);
        return rc;
    }
    return fd;
}

/* Joins the words of the command back into the one line the daemon reads. */
static int build_line(int argc, char **argv, char *line, size_t len) {
    size_t off = 0;
    for (int i = 0; i < argc; i++) {
        int n = snprintf(line + off, len - off, "%s%s", i ? " " : "", argv[i]);
        if (n < 0 || (size_t)n >= len - off) return -1;
        off += (size_t)n;
    }
    if (off + 1 >= len) return -1;
    line[off++] = '\n';
    line[off] = '\0';
    return 0;
}

int main(int argc, char **argv) {
    const char *path = "/run/swimd.sock";
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "-s") == 0) {
        path = argv[2];
        first = 3;
    }
    if (first >= argc) return usage();
    const char *cmd = argv[first];
    if (strcmp(cmd, "members") && strcmp(cmd, "stats") && strcmp(cmd, "leave") && strcmp(cmd, "event")) return usage();
    char line[512];
    if (build_line(argc - first, argv + first, line, sizeof line) != 0) {
        fprintf(stderr, "swimctl: command too long\n");
        return 2;
    }
    int fd = connect_to(path);
    if (fd < 0) {
        fprintf(stderr, "swimctl: %s: %s (is swimd running?)\n", path, strerror(-fd));
        return 1;
    }
    if (write(fd, line, strlen(line)) < 0) {
        perror("swimctl: write");
        close(fd);
        return 1;
    }
    shutdown(fd, SHUT_WR);
    char buf[4096];
    ssize_t n;
    int failed = 0;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        if (strncmp(buf, "error:", 6) == 0) failed = 1;
        fwrite(buf, 1, (size_t)n, stdout);
    }
    close(fd);
    return failed;
}
