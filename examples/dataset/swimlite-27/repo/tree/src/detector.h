/*
 * The failure detector's protocol period: every probe_interval one member (round robin, see
 * probe.c) is pinged. Without an ack within probe_timeout, indirect_checks other members are
 * asked to ping it for us (ping-req); if no ack, direct or relayed, arrives before the period
 * ends, the probe failed and the member becomes suspect. We also relay probes for others.
 */
#ifndef SWIM_DETECTOR_H
#define SWIM_DETECTOR_H

#include <stdint.h>

#include "packet.h"
#include "swim.h"

#define SWIM_MAX_RELAYS 16

typedef struct {
    int active;
    char target[SWIM_NAME_LEN];
    char target_addr[48];
    uint32_t seq;
    uint64_t started_ms;
    uint64_t direct_deadline_ms;
    uint64_t period_end_ms;
    int indirect_sent;
    int nacks_expected;
    int nacks_received;
} swim_probe_t;

/* A ping we send on behalf of a member that asked with a ping-req. */
typedef struct {
    int used;
    char requester[SWIM_NAME_LEN];
    char requester_addr[48];
    uint32_t requester_seq;
    char target[SWIM_NAME_LEN];
    uint32_t seq;
    uint64_t deadline_ms;
} swim_relay_t;

typedef struct {
    swim_probe_t probe;
    swim_relay_t relays[SWIM_MAX_RELAYS];
    uint32_t next_seq;
    uint64_t next_probe_ms;
    uint32_t rnd;
} swim_detector_t;

struct swim_agent;

void swim_detector_init(swim_detector_t *d, uint32_t seed);
void swim_detector_tick(struct swim_agent *a, uint64_t now_ms);
void swim_detector_on_packet(struct swim_agent *a, const swim_packet_t *p, const char *from_addr, uint64_t now_ms);
/* When the next timer of the detector is due, for the agent's wait. */
uint64_t swim_detector_next_deadline(const swim_detector_t *d);

#endif
