#include "metrics.h"

#include <inttypes.h>
#include <stdio.h>

static const uint64_t rtt_bounds[SWIM_RTT_BUCKETS - 1] = {1, 2, 5, 10, 20, 50, 100};

void swim_metrics_observe_rtt(swim_metrics_t *m, uint64_t rtt_ms) {
    size_t b = 0;
    while (b < SWIM_RTT_BUCKETS - 1 && rtt_ms > rtt_bounds[b]) b++;
    m->rtt_counts[b]++;
    m->rtt_sum_ms += rtt_ms;
}

uint64_t swim_metrics_rtt_quantile(const swim_metrics_t *m, double q) {
    uint64_t total = 0, seen = 0;
    for (size_t b = 0; b < SWIM_RTT_BUCKETS; b++) total += m->rtt_counts[b];
    if (total == 0) return 0;
    for (size_t b = 0; b < SWIM_RTT_BUCKETS - 1; b++) {
        seen += m->rtt_counts[b];
        if ((double)seen >= q * (double)total) return rtt_bounds[b];
    }
    return UINT64_MAX;
}

typedef struct {
    char *buf;
    size_t len;
    size_t off;
} out_t;

static void line(out_t *o, const char *name, uint64_t v) {
    if (o->off >= o->len) return;
    int n = snprintf(o->buf + o->off, o->len - o->off, "%s %" PRIu64 "\n", name, v);
    if (n > 0) o->off += (size_t)n < o->len - o->off ? (size_t)n : o->len - o->off - 1;
}

size_t swim_metrics_format(const swim_metrics_t *m, swim_cluster_t *c, int awareness, char *buf, size_t len) {
    out_t o = {buf, len, 0};
    if (len) buf[0] = '\0';
    line(&o, "packets_in", m->packets_in);
    line(&o, "packets_out", m->packets_out);
    line(&o, "bytes_in", m->bytes_in);
    line(&o, "bytes_out", m->bytes_out);
    line(&o, "decode_errors", m->decode_errors);
    line(&o, "send_errors", m->send_errors);
    line(&o, "auth_failures", m->auth_failures);
    line(&o, "pings_sent", m->pings_sent);
    line(&o, "acks_received", m->acks_received);
    line(&o, "ping_reqs_sent", m->ping_reqs_sent);
    line(&o, "ping_reqs_served", m->ping_reqs_served);
    line(&o, "nacks_received", m->nacks_received);
    line(&o, "probe_failures", m->probe_failures);
    line(&o, "joins", m->joins);
    line(&o, "suspicions", m->suspicions);
    line(&o, "suspicion_confirmations", m->suspicion_confirmations);
    line(&o, "deaths", m->deaths);
    line(&o, "recoveries", m->recoveries);
    line(&o, "refutations", m->refutations);
    line(&o, "events_sent", m->events_sent);
    line(&o, "events_delivered", m->events_delivered);
    line(&o, "pushpulls", m->pushpulls);
    line(&o, "rejoins", m->rejoins);
    line(&o, "probe_rtt_p50_ms", swim_metrics_rtt_quantile(m, 0.5));
    line(&o, "probe_rtt_p99_ms", swim_metrics_rtt_quantile(m, 0.99));

    swim_member_t *members[SWIM_MAX_MEMBERS];
    size_t n = swim_members(c, members, SWIM_MAX_MEMBERS);
    uint64_t by_state[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++) by_state[members[i]->state]++;
    line(&o, "members_alive", by_state[SWIM_ALIVE]);
    line(&o, "members_suspect", by_state[SWIM_SUSPECT]);
    line(&o, "members_dead", by_state[SWIM_DEAD]);
    line(&o, "self_incarnation", swim_self(c)->incarnation);
    line(&o, "local_health", (uint64_t)awareness);
    return o.off;
}
