/* The daemon's pieces: transport addresses, the HTTP status endpoint over real TCP, and
 * event handlers as real processes. */
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "handlers.h"
#include "status_http.h"
#include "swim_agent.h"
#include "transport.h"

static void test_addresses(void) {
    struct sockaddr_in a;
    char text[64];
    assert(swim_addr_parse("10.8.0.17:7946", &a) == 0);
    swim_addr_format(&a, text, sizeof text);
    assert(strcmp(text, "10.8.0.17:7946") == 0);
    assert(swim_addr_parse(":7946", &a) == 0 && a.sin_addr.s_addr == htonl(INADDR_ANY));
    assert(swim_addr_parse("10.8.0.17", &a) == -EINVAL);
    assert(swim_addr_parse("10.8.0.17:99999", &a) == -EINVAL);
}

/* Sends one request to the endpoint, lets it answer, and returns the response. */
static void http_get(swim_status_t *s, swim_agent_t *agent, const char *path, char *out, size_t len) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(s->port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert(connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0);
    char req[256];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: test\r\n\r\n", path);
    assert(write(fd, req, (size_t)n) == n);
    swim_status_poll(s, agent);
    size_t off = 0;
    ssize_t got;
    while (off < len - 1 && (got = read(fd, out + off, len - 1 - off)) > 0) off += (size_t)got;
    out[off] = '\0';
    close(fd);
}

static void test_status_endpoint(void) {
    swim_agent_options_t o;
    swim_agent_options_defaults(&o);
    o.name = "node\"7";
    o.bind_addr = "127.0.0.1:0";
    swim_agent_t *agent = NULL;
    assert(swim_agent_new(&o, &agent) == 0);
    swim_status_t s;
    assert(swim_status_open(&s, "127.0.0.1:0") == 0 && s.port != 0);
    char resp[8192];
    http_get(&s, agent, "/health", resp, sizeof resp);
    assert(strncmp(resp, "HTTP/1.0 200 OK\r\n", 17) == 0 && strstr(resp, "\r\n\r\nalive\n"));
    http_get(&s, agent, "/members", resp, sizeof resp);
    assert(strstr(resp, "application/json") && strstr(resp, "[{\"name\":\"node\\\"7\","));
    http_get(&s, agent, "/nope", resp, sizeof resp);
    assert(strncmp(resp, "HTTP/1.0 404", 12) == 0);
    assert(swim_agent_leave(agent) == 0);
    http_get(&s, agent, "/health", resp, sizeof resp);
    assert(strncmp(resp, "HTTP/1.0 503", 12) == 0);
    assert(s.requests == 4);
    swim_status_close(&s);
    swim_agent_free(agent);
}

static void wait_for_handlers(swimd_handlers_t *h) {
    struct timespec ms = {0, 1000000};
    while (h->n_running > 0) {
        swimd_handlers_reap(h, NULL);
        nanosleep(&ms, NULL);
    }
}

static void test_handlers(const char *dir) {
    char cmd[512], path[300], line[128];
    snprintf(path, sizeof path, "%s/events", dir);
    snprintf(cmd, sizeof cmd, "echo \"$SWIM_EVENT $SWIM_MEMBER $SWIM_INCARNATION\" >> %s; test \"$SWIM_MEMBER\" != node9",
             path);
    swimd_handlers_t h;
    swimd_handlers_init(&h, cmd, 2);
    swim_member_t m = {.name = "node7", .addr = "10.8.0.17:7946", .incarnation = 42, .state = SWIM_DEAD};
    assert(swimd_handlers_member(&h, &m, SWIM_SUSPECT, 0) == 0);
    wait_for_handlers(&h);
    snprintf(m.name, sizeof m.name, "node9");
    assert(swimd_handlers_member(&h, &m, SWIM_SUSPECT, 0) == 0);
    wait_for_handlers(&h);
    assert(h.started == 2 && h.failed == 1);
    FILE *f = fopen(path, "r");
    assert(f && fgets(line, sizeof line, f) && strcmp(line, "member-dead node7 42\n") == 0);
    fclose(f);
    unlink(path);
}

int main(void) {
    char dir[] = "/tmp/swimd-test-XXXXXX";
    assert(mkdtemp(dir));
    test_addresses();
    test_status_endpoint();
    test_handlers(dir);
    rmdir(dir);
    puts("test_swimd passed");
    return 0;
}
