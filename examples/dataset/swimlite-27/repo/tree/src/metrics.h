/* Counters of the agent, exported by the control socket's "stats" command as
 * "name value" lines. */
#ifndef SWIM_METRICS_H
#define SWIM_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "swim.h"

#define SWIM_RTT_BUCKETS 8

typedef struct {
    uint64_t packets_in, packets_out, bytes_in, bytes_out;
    uint64_t decode_errors, send_errors, auth_failures;
    uint64_t pings_sent, acks_received, ping_reqs_sent, ping_reqs_served, nacks_received;
    uint64_t probe_failures;
    uint64_t joins, suspicions, deaths, recoveries, refutations;
    uint64_t suspicion_confirmations;
    uint64_t events_sent, events_delivered;
    uint64_t pushpulls, rejoins;
    uint64_t rtt_counts[SWIM_RTT_BUCKETS]; /* <= 1, 2, 5, 10, 20, 50, 100 ms, more */
    uint64_t rtt_sum_ms;
} swim_metrics_t;

void swim_metrics_observe_rtt(swim_metrics_t *m, uint64_t rtt_ms);

/* The smallest bucket bound under which a fraction q of the probe round trips fall. */
uint64_t swim_metrics_rtt_quantile(const swim_metrics_t *m, double q);

/* Counters, then members by state and the local health score. Returns the length written
 * (truncated to len - 1). */
size_t swim_metrics_format(const swim_metrics_t *m, swim_cluster_t *c, int awareness, char *buf, size_t len);

#endif
