/* The control socket: a Unix stream socket where swimctl asks for one thing per connection,
 * as a line: "members", "stats", "event <name> [payload]" or "leave". */
#ifndef SWIM_CONTROL_H
#define SWIM_CONTROL_H

#include "swim_agent.h"

typedef struct {
    int fd;
    char path[108];
    int leave_requested;
} swim_control_t;

/* Replaces a stale socket file left by a previous run. */
int swim_control_open(swim_control_t *c, const char *path);
void swim_control_close(swim_control_t *c);

/* Answers the connections that are waiting, without blocking on new ones. */
void swim_control_poll(swim_control_t *c, swim_agent_t *a);

/* Runs one command line and writes the answer into out (for tests and the socket). */
int swim_control_execute(swim_control_t *c, swim_agent_t *a, const char *line, char *out, size_t len);

#endif
