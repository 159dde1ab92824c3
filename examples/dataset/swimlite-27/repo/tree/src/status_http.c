#include "status_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent_internal.h"

#define REQUEST_TIMEOUT_MS 200

int swim_status_open(swim_status_t *s, const char *listen_addr) {
    struct sockaddr_in addr;
    int rc = swim_addr_parse(listen_addr, &addr);
    if (rc != 0) return rc;
    memset(s, 0, sizeof *s);
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (s->fd < 0) return -errno;
    int one = 1;
    setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK);
    if (bind(s->fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(s->fd, 16) != 0) {
        rc = -errno;
        close(s->fd);
        s->fd = -1;
        return rc;
    }
    socklen_t alen = sizeof addr;
    getsockname(s->fd, (struct sockaddr *)&addr, &alen);
    s->port = ntohs(addr.sin_port);
    return 0;
}

void swim_status_close(swim_status_t *s) {
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
}

size_t swim_json_string(const char *s, char *out, size_t len) {
    size_t off = 0;
#define PUT(c)                              \
    do {                                    \
        if (off + 1 < len) out[off] = (c);  \
        off++;                              \
    } while (0)
    PUT('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            PUT('\\');
            PUT((char)*p);
        } else if (*p < 0x20) {
            char esc[8];
            snprintf(esc, sizeof esc, "\\u%04x", *p);
            for (char *e = esc; *e; e++) PUT(*e);
        } else {
            PUT((char)*p);
        }
    }
    PUT('"');
#undef PUT
    if (len) out[off < len ? off : len - 1] = '\0';
    return off;
}

static size_t members_json(swim_agent_t *a, char *body, size_t len) {
    static const char *states[] = {"alive", "suspect", "dead"};
    swim_member_t *members[SWIM_MAX_MEMBERS];
    size_t n = swim_members(a->cluster, members, SWIM_MAX_MEMBERS), off = 0;
    off += (size_t)snprintf(body, len, "[");
    for (size_t i = 0; i < n && off < len; i++) {
        char name[2 * SWIM_NAME_LEN + 8], addr[2 * 48 + 8];
        swim_json_string(members[i]->name, name, sizeof name);
        swim_json_string(members[i]->addr, addr, sizeof addr);
        off += (size_t)snprintf(body + off, len - off, "%s{\"name\":%s,\"addr\":%s,\"state\":\"%s\",\"incarnation\":%u}",
                                i ? "," : "", name, addr, states[members[i]->state], members[i]->incarnation);
    }
    if (off < len) off += (size_t)snprintf(body + off, len - off, "]\n");
    return off;
}

int swim_status_route(swim_agent_t *a, const char *path, char *body, size_t len, const char **content_type) {
    *content_type = "text/plain";
    if (strcmp(path, "/health") == 0) {
        int live = !a->left && swim_self(a->cluster)->state == SWIM_ALIVE;
        snprintf(body, len, "%s\n", live ? "alive" : "left");
        return live ? 200 : 503;
    }
    if (strcmp(path, "/members") == 0) {
        *content_type = "application/json";
        members_json(a, body, len);
        return 200;
    }
    if (strcmp(path, "/metrics") == 0) {
        swim_agent_stats(a, body, len);
        return 200;
    }
    snprintf(body, len, "not found\n");
    return 404;
}

static const char *reason(int status) {
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 503: return "Service Unavailable";
    }
    return "Error";
}

/* Reads the request head; only its first line matters. */
static int read_request_line(int fd, char *method, char *path, size_t path_len) {
    char buf[1024];
    size_t off = 0;
    while (off < sizeof buf - 1 && !memchr(buf, '\n', off)) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, REQUEST_TIMEOUT_MS) <= 0) return -ETIMEDOUT;
        ssize_t n = read(fd, buf + off, sizeof buf - 1 - off);
        if (n <= 0) return -ECONNRESET;
        off += (size_t)n;
    }
    buf[off] = '\0';
    char fmt[32];
    snprintf(fmt, sizeof fmt, "%%7s %%%zus", path_len - 1);
    return sscanf(buf, fmt, method, path) == 2 ? 0 : -EBADMSG;
}

static void respond(swim_agent_t *a, int fd) {
    char method[8], path[128], body[16384], head[256];
    const char *type = "text/plain";
    int status;
    if (read_request_line(fd, method, path, sizeof path) != 0 || strcmp(method, "GET") != 0) {
        status = 400;
        snprintf(body, sizeof body, "only GET /health, /members and /metrics\n");
    } else {
        status = swim_status_route(a, path, body, sizeof body, &type);
    }
    int hlen = snprintf(head, sizeof head, "HTTP/1.0 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n\r\n", status,
                        reason(status), type, strlen(body));
    if (write(fd, head, (size_t)hlen) == hlen && write(fd, body, strlen(body)) < 0) {
        /* the client went away; nothing to do */
    }
}

void swim_status_poll(swim_status_t *s, swim_agent_t *a) {
    for (;;) {
        int client = accept(s->fd, NULL, NULL);
        if (client < 0) return;
        s->requests++;
        respond(a, client);
        close(client);
    }
}
