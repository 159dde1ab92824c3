/* A small HTTP/1.0 status endpoint for load balancers and dashboards:
 *   GET /health    200 "alive" while we are a live member, 503 after leaving
 *   GET /members   the member list as JSON
 *   GET /metrics   the agent's counters, as the control socket's "stats"
 * One request per connection, answered inside swim_status_poll(); no keep-alive. */
#ifndef SWIM_STATUS_HTTP_H
#define SWIM_STATUS_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "swim_agent.h"

typedef struct {
    int fd;
    uint16_t port;
    uint64_t requests;
} swim_status_t;

/* "ip:port"; port 0 picks a free one (see port). */
int swim_status_open(swim_status_t *s, const char *listen_addr);
void swim_status_close(swim_status_t *s);
void swim_status_poll(swim_status_t *s, swim_agent_t *a);

/* The response for a request path: status code, content type and body. */
int swim_status_route(swim_agent_t *a, const char *path, char *body, size_t len, const char **content_type);

/* Writes s as a JSON string literal (with quotes) into out. */
size_t swim_json_string(const char *s, char *out, size_t len);

#endif
