#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent_internal.h"

#define CONTROL_TIMEOUT_MS 200

int swim_control_open(swim_control_t *c, const char *path) {
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path) return -ENAMETOOLONG;
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    c->fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (c->fd < 0) return -errno;
    fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
    unlink(path);
    if (bind(c->fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(c->fd, 8) != 0) {
        int rc = -errno;
        close(c->fd);
        c->fd = -1;
        return rc;
    }
    return 0;
}

void swim_control_close(swim_control_t *c) {
    if (c->fd < 0) return;
    close(c->fd);
    unlink(c->path);
    c->fd = -1;
}

static const char *state_name(swim_state_t s) {
    return s == SWIM_ALIVE ? "alive" : s == SWIM_SUSPECT ? "suspect" : "dead";
}

static size_t list_members(swim_agent_t *a, char *out, size_t len) {
    swim_member_t *members[SWIM_MAX_MEMBERS];
    size_t n = swim_members(a->cluster, members, SWIM_MAX_MEMBERS), off = 0;
    for (size_t i = 0; i < n && off < len; i++) {
        int w = snprintf(out + off, len - off, "%-24s %-22s %-8s %u\n", members[i]->name, members[i]->addr,
                         state_name(members[i]->state), members[i]->incarnation);
        if (w < 0) break;
        off += (size_t)w;
    }
    return off < len ? off : len - 1;
}

int swim_control_execute(swim_control_t *c, swim_agent_t *a, const char *line, char *out, size_t len) {
    char cmd[16] = "", name[SWIM_EVENT_NAME_LEN] = "";
    int consumed = 0;
    sscanf(line, "%15s%n", cmd, &consumed);
    if (strcmp(cmd, "members") == 0) {
        list_members(a, out, len);
        return 0;
    }
    if (strcmp(cmd, "stats") == 0) {
        swim_agent_stats(a, out, len);
        return 0;
    }
    if (strcmp(cmd, "leave") == 0) {
        c->leave_requested = 1;
        snprintf(out, len, "leaving\n");
        return 0;
    }
    if (strcmp(cmd, "event") == 0) {
        int name_end = 0;
        if (sscanf(line + consumed, " %31s%n", name, &name_end) != 1) {
            snprintf(out, len, "error: usage: event <name> [payload]\n");
            return -EINVAL;
        }
        const char *payload = line + consumed + name_end;
        while (*payload == ' ') payload++;
        int rc = swim_agent_send_event(a, name, payload, strlen(payload));
        snprintf(out, len, rc == 0 ? "ok\n" : "error: %s\n", strerror(-rc));
        return rc;
    }
    snprintf(out, len, "error: unknown command \"%s\"\n", cmd);
    return -EINVAL;
}

/* Reads one line from a client that has up to CONTROL_TIMEOUT_MS to send it. */
static int read_line(int fd, char *buf, size_t cap) {
    size_t off = 0;
    while (off < cap - 1) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, CONTROL_TIMEOUT_MS) <= 0) return -ETIMEDOUT;
        ssize_t n = read(fd, buf + off, cap - 1 - off);
        if (n <= 0) break;
        off += (size_t)n;
        if (memchr(buf, '\n', off)) break;
    }
    buf[off] = '\0';
    buf[strcspn(buf, "\r\n")] = '\0';
    return off > 0 ? 0 : -ENODATA;
}

static void write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}

void swim_control_poll(swim_control_t *c, swim_agent_t *a) {
    for (;;) {
        int client = accept(c->fd, NULL, NULL);
        if (client < 0) return; /* EAGAIN: nobody waiting */
        char line[512], answer[16384];
        if (read_line(client, line, sizeof line) == 0) {
            swim_control_execute(c, a, line, answer, sizeof answer);
            write_all(client, answer, strlen(answer));
        }
        close(client);
    }
}
