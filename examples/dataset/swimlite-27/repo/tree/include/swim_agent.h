#ifndef SWIM_AGENT_H
#define SWIM_AGENT_H

/*
 * The agent: a member of a SWIM cluster with its own UDP socket, failure detector and
 * dissemination, driven by the caller's loop:
 *
 *     swim_agent_t *a;
 *     swim_agent_options_t o;
 *     swim_agent_options_defaults(&o);
 *     o.name = "node7";
 *     o.bind_addr = "10.8.0.17:7946";
 *     swim_agent_new(&o, &a);
 *     swim_agent_join(a, seeds, n_seeds);
 *     for (;;) swim_agent_step(a, 50);
 *
 * Not thread safe. Callbacks run inside swim_agent_step().
 */

#include <stddef.h>
#include <stdint.h>

#include "keyring.h"
#include "swim.h"

typedef struct {
    const char *name;
    const char *bind_addr;      /* "ip:port"; port 0 picks one */
    const char *advertise_addr; /* what others use to reach us; defaults to the bound address */
    uint64_t probe_interval_ms;
    uint64_t probe_timeout_ms;
    int indirect_checks;           /* members asked to probe for us after a direct timeout */
    uint64_t suspicion_timeout_ms; /* a suspect not refuted within this is declared dead */
    uint64_t suspicion_min_ms;     /* > 0 enables shortening by confirmations (suspicion.h) */
    int retransmit_mult;
    /* Full member-list exchange with a random member, to repair what gossip lost; 0 disables. */
    uint64_t pushpull_interval_ms;
    /* Authenticate packets (keyring.h); NULL sends and accepts plain packets. */
    const swim_keyring_t *keyring;
    swim_log_fn log;
    uint64_t (*clock_ms)(void); /* monotonic milliseconds; tests substitute their own */
} swim_agent_options_t;

typedef struct swim_agent swim_agent_t;

/* A member appeared or changed state; old_state is the previous state (equal to the new one
 * for a join). */
typedef void (*swim_member_event_fn)(void *arg, const swim_member_t *m, swim_state_t old_state, int joined);
typedef void (*swim_user_event_fn)(void *arg, const char *name, const char *payload, size_t len, uint32_t ltime);

void swim_agent_options_defaults(swim_agent_options_t *o);

int swim_agent_new(const swim_agent_options_t *o, swim_agent_t **out);
void swim_agent_free(swim_agent_t *a);

/* Asks every seed for its member list. Succeeds when at least one request was sent; the
 * members arrive during the following steps. The seeds are remembered: an agent that finds
 * itself without live members contacts them again. */
int swim_agent_join(swim_agent_t *a, const char *const *seeds, size_t n_seeds);

/* Handles the packets that arrive within timeout_ms (or until a timer is due), then runs
 * the timers: probes, suspicion timeouts, relayed probes. */
int swim_agent_step(swim_agent_t *a, int timeout_ms);

/* Tells the cluster we are leaving; the agent stops probing afterwards. */
int swim_agent_leave(swim_agent_t *a);

int swim_agent_send_event(swim_agent_t *a, const char *name, const void *payload, size_t len);

void swim_agent_on_member_event(swim_agent_t *a, swim_member_event_fn fn, void *arg);
void swim_agent_on_user_event(swim_agent_t *a, swim_user_event_fn fn, void *arg);

swim_cluster_t *swim_agent_cluster(swim_agent_t *a);
const char *swim_agent_address(const swim_agent_t *a);
/* The "stats" text of the control socket. */
size_t swim_agent_stats(swim_agent_t *a, char *buf, size_t len);

#endif
