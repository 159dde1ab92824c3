/* swimd's event handlers: a shell command run for every member event and user event, with
 * the event in its environment (as serf does), so operators can drain load balancers or
 * page someone without linking against libswim:
 *   SWIM_EVENT       member-join, member-alive, member-suspect, member-dead or user
 *   SWIM_MEMBER, SWIM_MEMBER_ADDR, SWIM_INCARNATION   for member events
 *   SWIM_USER_EVENT, SWIM_LTIME                       for user events (payload on stdin)
 * At most max_running handlers run at once; events beyond that are dropped and counted. */
#ifndef SWIMD_HANDLERS_H
#define SWIMD_HANDLERS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "swim.h"

#define SWIMD_MAX_HANDLERS 16

typedef struct {
    char command[512];
    int max_running;
    pid_t running[SWIMD_MAX_HANDLERS];
    int n_running;
    uint64_t started, failed, dropped;
} swimd_handlers_t;

void swimd_handlers_init(swimd_handlers_t *h, const char *command, int max_running);
int swimd_handlers_member(swimd_handlers_t *h, const swim_member_t *m, swim_state_t old_state, int joined);
int swimd_handlers_user(swimd_handlers_t *h, const char *name, const char *payload, size_t len, uint32_t ltime);
/* Collects finished handlers; call from the main loop. */
void swimd_handlers_reap(swimd_handlers_t *h, swim_log_fn log);

#endif
