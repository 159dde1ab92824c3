#include "transport.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "packet.h"

int swim_addr_parse(const char *s, struct sockaddr_in *out) {
    const char *colon = strrchr(s, ':');
    if (!colon || colon[1] == '\0') return -EINVAL;
    char host[256];
    size_t hlen = (size_t)(colon - s);
    if (hlen >= sizeof host) return -ENAMETOOLONG;
    memcpy(host, s, hlen);
    host[hlen] = '\0';
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end != '\0' || port < 0 || port > 65535) return -EINVAL;

    memset(out, 0, sizeof *out);
    out->sin_family = AF_INET;
    out->sin_port = htons((uint16_t)port);
    if (hlen == 0) {
        out->sin_addr.s_addr = htonl(INADDR_ANY);
        return 0;
    }
    if (inet_pton(AF_INET, host, &out->sin_addr) == 1) return 0;
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_DGRAM};
    struct addrinfo *res = NULL;
    if (getaddrinfo(host, NULL, &hints, &res) != 0 || !res) return -EHOSTUNREACH;
    out->sin_addr = ((struct sockaddr_in *)res->ai_addr)->sin_addr;
    freeaddrinfo(res);
    return 0;
}

void swim_addr_format(const struct sockaddr_in *a, char *buf, size_t len) {
    char ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
    snprintf(buf, len, "%s:%u", ip, (unsigned)ntohs(a->sin_port));
}

int swim_transport_open(const char *bind_addr, swim_transport_t *t) {
    struct sockaddr_in addr;
    int rc = swim_addr_parse(bind_addr, &addr);
    if (rc != 0) return rc;
    t->fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (t->fd < 0) return -errno;
    fcntl(t->fd, F_SETFD, FD_CLOEXEC);
    if (bind(t->fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        rc = -errno;
        close(t->fd);
        t->fd = -1;
        return rc;
    }
    socklen_t len = sizeof addr;
    getsockname(t->fd, (struct sockaddr *)&addr, &len);
    swim_addr_format(&addr, t->local, sizeof t->local);
    return 0;
}

void swim_transport_close(swim_transport_t *t) {
    if (t->fd >= 0) close(t->fd);
    t->fd = -1;
}

int swim_transport_send(swim_transport_t *t, const char *addr, const void *buf, size_t len) {
    struct sockaddr_in to;
    if (len > SWIM_MAX_PACKET) return -EMSGSIZE;
    int rc = swim_addr_parse(addr, &to);
    if (rc != 0) return rc;
    ssize_t n = sendto(t->fd, buf, len, 0, (struct sockaddr *)&to, sizeof to);
    if (n < 0) return -errno;
    return 0;
}

ssize_t swim_transport_recv(swim_transport_t *t, int timeout_ms, void *buf, size_t cap, char *from, size_t from_len) {
    struct pollfd pfd = {.fd = t->fd, .events = POLLIN};
    int ready = poll(&pfd, 1, timeout_ms);
    if (ready < 0) return errno == EINTR ? 0 : -errno;
    if (ready == 0) return 0;
    struct sockaddr_in src;
    socklen_t slen = sizeof src;
    ssize_t n = recvfrom(t->fd, buf, cap, 0, (struct sockaddr *)&src, &slen);
    if (n < 0) return errno == EAGAIN || errno == EINTR ? 0 : -errno;
    swim_addr_format(&src, from, from_len);
    return n;
}
