#include "detector.h"

#include <stdio.h>
#include <string.h>

#include "agent_internal.h"

void swim_detector_init(swim_detector_t *d, uint32_t seed) {
    memset(d, 0, sizeof *d);
    d->rnd = seed ? seed : 0x9e3779b9u;
}

static uint32_t next_random(swim_detector_t *d) {
    /* xorshift32: enough to spread ping-reqs, not for anything secret */
    uint32_t x = d->rnd;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return d->rnd = x;
}

uint64_t swim_detector_next_deadline(const swim_detector_t *d) {
    uint64_t next = d->next_probe_ms;
    if (d->probe.active) {
        uint64_t t = d->probe.indirect_sent ? d->probe.period_end_ms : d->probe.direct_deadline_ms;
        if (t < next) next = t;
    }
    for (int i = 0; i < SWIM_MAX_RELAYS; i++)
        if (d->relays[i].used && d->relays[i].deadline_ms < next) next = d->relays[i].deadline_ms;
    return next;
}

static void send_ping(swim_agent_t *a, const char *target, const char *addr, uint32_t seq) {
    swim_packet_t p;
    swim_agent_packet(a, PKT_PING, seq, &p);
    snprintf(p.target, sizeof p.target, "%s", target);
    if (swim_agent_send(a, addr, &p) == 0) a->metrics.pings_sent++;
}

static void start_probe(swim_agent_t *a, uint64_t now) {
    swim_detector_t *d = &a->detector;
    const swim_member_t *m = swim_next_probe_target(a->cluster);
    if (!m) return;
    swim_probe_t *p = &d->probe;
    memset(p, 0, sizeof *p);
    p->active = 1;
    snprintf(p->target, sizeof p->target, "%s", m->name);
    snprintf(p->target_addr, sizeof p->target_addr, "%s", m->addr);
    p->seq = ++d->next_seq;
    p->started_ms = now;
    p->direct_deadline_ms = now + swim_awareness_scale(&a->awareness, a->opts.probe_timeout_ms);
    p->period_end_ms = now + a->opts.probe_interval_ms;
    if (p->period_end_ms <= p->direct_deadline_ms) p->period_end_ms = p->direct_deadline_ms + 1;
    send_ping(a, p->target, p->target_addr, p->seq);
}

/* Picks up to k alive members other than us and the target, at random. */
static size_t pick_helpers(swim_agent_t *a, const char *target, swim_member_t **out, size_t k) {
    swim_member_t *all[SWIM_MAX_MEMBERS];
    size_t n = swim_members(a->cluster, all, SWIM_MAX_MEMBERS), candidates = 0;
    for (size_t i = 0; i < n; i++) {
        swim_member_t *m = all[i];
        if (m == swim_self(a->cluster) || m->state != SWIM_ALIVE || strcmp(m->name, target) == 0) continue;
        all[candidates++] = m;
    }
    size_t picked = 0;
    for (size_t i = 0; i < candidates && picked < k; i++) {
        size_t j = i + next_random(&a->detector) % (candidates - i);
        swim_member_t *tmp = all[i];
        all[i] = all[j];
        all[j] = tmp;
        out[picked++] = all[i];
    }
    return picked;
}

static void ask_for_indirect_probes(swim_agent_t *a) {
    swim_probe_t *p = &a->detector.probe;
    swim_member_t *helpers[8];
    size_t k = a->opts.indirect_checks > 8 ? 8 : (size_t)a->opts.indirect_checks;
    size_t n = pick_helpers(a, p->target, helpers, k);
    swim_log(a->cluster, "DEBUG", "ping %s timed out, asking %zu members for indirect probes", p->target, n);
    for (size_t i = 0; i < n; i++) {
        swim_packet_t req;
        swim_agent_packet(a, PKT_PING_REQ, p->seq, &req);
        snprintf(req.target, sizeof req.target, "%s", p->target);
        snprintf(req.target_addr, sizeof req.target_addr, "%s", p->target_addr);
        if (swim_agent_send(a, helpers[i]->addr, &req) == 0) a->metrics.ping_reqs_sent++;
    }
    p->indirect_sent = 1;
    p->nacks_expected = (int)n;
}

static void finish_failed_probe(swim_agent_t *a, uint64_t now) {
    swim_probe_t *p = &a->detector.probe;
    a->metrics.probe_failures++;
    /* Helpers that did not even nack suggest our own network is the problem. */
    int missed_nacks = p->nacks_expected - p->nacks_received;
    if (missed_nacks > 0) swim_awareness_apply(&a->awareness, missed_nacks);
    p->active = 0;
    swim_on_probe_failed(a->cluster, p->target, now);
}

static void expire_relays(swim_agent_t *a, uint64_t now) {
    for (int i = 0; i < SWIM_MAX_RELAYS; i++) {
        swim_relay_t *r = &a->detector.relays[i];
        if (!r->used || now < r->deadline_ms) continue;
        swim_packet_t nack;
        swim_agent_packet(a, PKT_NACK, r->requester_seq, &nack);
        snprintf(nack.target, sizeof nack.target, "%s", r->target);
        swim_agent_send(a, r->requester_addr, &nack);
        r->used = 0;
    }
}

void swim_detector_tick(swim_agent_t *a, uint64_t now) {
    swim_detector_t *d = &a->detector;
    expire_relays(a, now);
    if (d->probe.active && !d->probe.indirect_sent && now >= d->probe.direct_deadline_ms) ask_for_indirect_probes(a);
    if (d->probe.active && now >= d->probe.period_end_ms) finish_failed_probe(a, now);
    if (!d->probe.active && now >= d->next_probe_ms && !a->left) {
        d->next_probe_ms = now + a->opts.probe_interval_ms;
        start_probe(a, now);
    }
}

static void on_ping(swim_agent_t *a, const swim_packet_t *p, const char *from_addr) {
    /* A ping for a former owner of our address (a node that moved away) is not ours. */
    if (p->target[0] && strcmp(p->target, a->name) != 0) {
        swim_log(a->cluster, "DEBUG", "ping from %s for %s, not us; not answering", p->from, p->target);
        return;
    }
    swim_packet_t ack;
    swim_agent_packet(a, PKT_ACK, p->seq, &ack);
    swim_agent_send(a, from_addr, &ack);
}

static void on_ping_req(swim_agent_t *a, const swim_packet_t *p, const char *from_addr, uint64_t now) {
    swim_detector_t *d = &a->detector;
    swim_relay_t *slot = NULL;
    for (int i = 0; i < SWIM_MAX_RELAYS && !slot; i++)
        if (!d->relays[i].used) slot = &d->relays[i];
    if (!slot) {
        swim_log(a->cluster, "WARN", "too many relayed probes, ignoring ping-req from %s for %s", p->from, p->target);
        return;
    }
    memset(slot, 0, sizeof *slot);
    slot->used = 1;
    snprintf(slot->requester, sizeof slot->requester, "%s", p->from);
    snprintf(slot->requester_addr, sizeof slot->requester_addr, "%s", from_addr);
    snprintf(slot->target, sizeof slot->target, "%s", p->target);
    slot->requester_seq = p->seq;
    slot->seq = ++d->next_seq;
    slot->deadline_ms = now + a->opts.probe_timeout_ms;
    a->metrics.ping_reqs_served++;
    send_ping(a, p->target, p->target_addr, slot->seq);
}

/* An ack for one of our relayed pings goes back to whoever asked, under their sequence. */
static int forward_relayed_ack(swim_agent_t *a, const swim_packet_t *p) {
    for (int i = 0; i < SWIM_MAX_RELAYS; i++) {
        swim_relay_t *r = &a->detector.relays[i];
        if (!r->used || r->seq != p->seq || strcmp(r->target, p->from) != 0) continue;
        swim_packet_t ack;
        swim_agent_packet(a, PKT_ACK, r->requester_seq, &ack);
        snprintf(ack.target, sizeof ack.target, "%s", r->target);
        swim_agent_send(a, r->requester_addr, &ack);
        r->used = 0;
        return 1;
    }
    return 0;
}

static void on_ack(swim_agent_t *a, const swim_packet_t *p, uint64_t now) {
    swim_probe_t *probe = &a->detector.probe;
    int ours = probe->active && p->seq == probe->seq;
    int direct = ours && strcmp(p->from, probe->target) == 0;
    int relayed = ours && strcmp(p->target, probe->target) == 0;
    if (direct || relayed) {
        if (direct) swim_log(a->cluster, "DEBUG", "ack from %s (direct probe)", p->from);
        else swim_log(a->cluster, "DEBUG", "ack for %s via %s (indirect probe)", probe->target, p->from);
        a->metrics.acks_received++;
        swim_metrics_observe_rtt(&a->metrics, now - probe->started_ms);
        swim_awareness_apply(&a->awareness, -1);
        probe->active = 0;
        return;
    }
    if (!forward_relayed_ack(a, p))
        swim_log(a->cluster, "DEBUG", "late or unknown ack %u from %s", (unsigned)p->seq, p->from);
}

void swim_detector_on_packet(swim_agent_t *a, const swim_packet_t *p, const char *from_addr, uint64_t now) {
    switch (p->type) {
    case PKT_PING:
        on_ping(a, p, from_addr);
        break;
    case PKT_ACK:
        on_ack(a, p, now);
        break;
    case PKT_PING_REQ:
        on_ping_req(a, p, from_addr, now);
        break;
    case PKT_NACK:
        if (a->detector.probe.active && p->seq == a->detector.probe.seq) {
            a->detector.probe.nacks_received++;
            a->metrics.nacks_received++;
        }
        break;
    default:
        break;
    }
}
