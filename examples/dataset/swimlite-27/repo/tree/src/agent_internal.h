/* The agent's state, shared by agent.c, detector.c and control.c. */
#ifndef SWIM_AGENT_INTERNAL_H
#define SWIM_AGENT_INTERNAL_H

#include "awareness.h"
#include "detector.h"
#include "events.h"
#include "internal.h"
#include "metrics.h"
#include "packet.h"
#include "suspicion.h"
#include "swim_agent.h"
#include "transport.h"

typedef struct {
    char name[SWIM_NAME_LEN];
    swim_state_t state;
} swim_seen_t;

struct swim_agent {
    swim_agent_options_t opts;
    char name[SWIM_NAME_LEN];
    char addr[48];
    swim_cluster_t *cluster;
    swim_transport_t transport;
    swim_detector_t detector;
    swim_suspicions_t suspicions;
    swim_awareness_t awareness;
    swim_events_t events;
    swim_metrics_t metrics;
    char seeds[8][48];
    size_t n_seeds;
    uint64_t next_pushpull_ms;
    size_t pushpull_cursor;
    swim_seen_t seen[SWIM_MAX_MEMBERS]; /* states at the end of the previous step */
    size_t n_seen;
    uint32_t seen_self_incarnation;
    swim_member_event_fn on_member;
    void *on_member_arg;
    swim_user_event_fn on_event;
    void *on_event_arg;
    int left;
};

uint64_t swim_agent_now(const swim_agent_t *a);

/* Piggybacks pending updates and events on p, encodes it and sends it to addr. */
int swim_agent_send(swim_agent_t *a, const char *addr, swim_packet_t *p);

/* A packet of type t from us, with nothing piggybacked yet. */
void swim_agent_packet(const swim_agent_t *a, swim_packet_type_t t, uint32_t seq, swim_packet_t *p);

/* How many sends an update or event gets: retransmit_mult * log2(members + 1), as in gossip.c. */
int swim_agent_transmits(const swim_agent_t *a);

#endif
