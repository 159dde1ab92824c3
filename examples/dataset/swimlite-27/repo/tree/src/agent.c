/* The agent: socket, packet dispatch, piggybacking, joining by member-list sync, and the
 * member and user event callbacks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent_internal.h"

static uint64_t monotonic_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void swim_agent_options_defaults(swim_agent_options_t *o) {
    memset(o, 0, sizeof *o);
    o->bind_addr = "0.0.0.0:7946";
    o->probe_interval_ms = 1000;
    o->probe_timeout_ms = 500;
    o->indirect_checks = 3;
    o->suspicion_timeout_ms = 5000;
    o->retransmit_mult = 4;
    o->pushpull_interval_ms = 30000;
    o->clock_ms = monotonic_ms;
}

uint64_t swim_agent_now(const swim_agent_t *a) { return a->opts.clock_ms(); }

int swim_agent_transmits(const swim_agent_t *a) {
    int transmits = a->opts.retransmit_mult;
    for (size_t n = a->cluster->n_members; n > 1; n /= 2) transmits++;
    return transmits;
}

static uint32_t seed_from(const char *name, uint64_t now) {
    uint32_t h = 2166136261u;
    for (const char *p = name; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    return h ^ (uint32_t)now;
}

int swim_agent_new(const swim_agent_options_t *o, swim_agent_t **out) {
    if (!o->name || !o->name[0] || strlen(o->name) >= SWIM_NAME_LEN) return -EINVAL;
    swim_agent_t *a = calloc(1, sizeof *a);
    if (!a) return -ENOMEM;
    a->opts = *o;
    if (!a->opts.clock_ms) a->opts.clock_ms = monotonic_ms;
    snprintf(a->name, sizeof a->name, "%s", o->name);
    int rc = swim_transport_open(o->bind_addr, &a->transport);
    if (rc != 0) {
        free(a);
        return rc;
    }
    snprintf(a->addr, sizeof a->addr, "%s", o->advertise_addr ? o->advertise_addr : a->transport.local);
    swim_config_t cfg = {.self_name = a->name,
                         .self_addr = a->addr,
                         .suspicion_timeout_ms = o->suspicion_timeout_ms,
                         .probe_interval_ms = o->probe_interval_ms,
                         .retransmit_mult = o->retransmit_mult,
                         .log = o->log};
    a->cluster = swim_new(&cfg);
    if (!a->cluster) {
        swim_transport_close(&a->transport);
        free(a);
        return -ENOMEM;
    }
    uint64_t now = swim_agent_now(a);
    swim_detector_init(&a->detector, seed_from(a->name, now));
    a->detector.next_probe_ms = now + o->probe_interval_ms;
    a->next_pushpull_ms = now + o->pushpull_interval_ms;
    swim_suspicions_init(&a->suspicions, o->suspicion_min_ms, o->suspicion_timeout_ms, o->indirect_checks);
    swim_awareness_init(&a->awareness, 8);
    swim_events_init(&a->events);
    snprintf(a->seen[0].name, sizeof a->seen[0].name, "%s", a->name);
    a->n_seen = 1;

    /* Announce ourselves: the first packets we send carry our alive. */
    swim_member_t *self = swim_self(a->cluster);
    swim_msg_t alive = {.type = MSG_ALIVE, .incarnation = self->incarnation};
    snprintf(alive.node, sizeof alive.node, "%s", a->name);
    snprintf(alive.from, sizeof alive.from, "%s", a->name);
    snprintf(alive.addr, sizeof alive.addr, "%s", a->addr);
    swim_broadcast(a->cluster, &alive);
    *out = a;
    return 0;
}

void swim_agent_free(swim_agent_t *a) {
    if (!a) return;
    swim_transport_close(&a->transport);
    swim_free(a->cluster);
    free(a);
}

void swim_agent_packet(const swim_agent_t *a, swim_packet_type_t t, uint32_t seq, swim_packet_t *p) {
    memset(p, 0, sizeof *p);
    p->type = t;
    p->seq = seq;
    snprintf(p->from, sizeof p->from, "%s", a->name);
}

/* Encodes, signs when a keyring is set, and sends. *fitted gets the updates that fit. */
static int transmit(swim_agent_t *a, const char *addr, const swim_packet_t *p, size_t *fitted) {
    char buf[SWIM_MAX_PACKET];
    size_t room = a->opts.keyring ? sizeof buf - SWIM_TAG_LEN : sizeof buf;
    int len = swim_packet_encode(p, buf, room, fitted, NULL);
    if (len >= 0 && a->opts.keyring) len = swim_keyring_seal(a->opts.keyring, buf, (size_t)len, sizeof buf);
    int rc = len < 0 ? len : swim_transport_send(&a->transport, addr, buf, (size_t)len);
    if (rc != 0) {
        a->metrics.send_errors++;
        swim_log(a->cluster, "DEBUG", "sending %s to %s failed: %s", swim_packet_type_name(p->type), addr,
                 strerror(-rc));
        return rc;
    }
    a->metrics.packets_out++;
    a->metrics.bytes_out += (uint64_t)len;
    return 0;
}

int swim_agent_send(swim_agent_t *a, const char *addr, swim_packet_t *p) {
    /* Piggyback only on packets that carry no updates of their own (sync replies do). */
    if (p->n_updates == 0) p->n_updates = swim_take_broadcasts(a->cluster, p->updates, SWIM_MAX_UPDATES);
    if (p->n_events == 0) p->n_events = swim_events_take(&a->events, p->events, SWIM_MAX_EVENTS);
    return transmit(a, addr, p, NULL);
}

/* Our view of a member as the update that would recreate it elsewhere. */
static swim_msg_t member_update(const swim_agent_t *a, const swim_member_t *m) {
    swim_msg_t msg = {.incarnation = m->incarnation};
    msg.type = m->state == SWIM_ALIVE ? MSG_ALIVE : m->state == SWIM_SUSPECT ? MSG_SUSPECT : MSG_DEAD;
    snprintf(msg.node, sizeof msg.node, "%s", m->name);
    snprintf(msg.from, sizeof msg.from, "%s", a->name);
    snprintf(msg.addr, sizeof msg.addr, "%s", m->addr);
    return msg;
}

/* Answers a sync with our whole member list, in as many packets as it takes. */
static void send_member_list(swim_agent_t *a, const char *to) {
    swim_member_t *members[SWIM_MAX_MEMBERS];
    size_t n = swim_members(a->cluster, members, SWIM_MAX_MEMBERS);
    for (size_t i = 0; i < n;) {
        swim_packet_t p;
        swim_agent_packet(a, PKT_SYNC_REPLY, 0, &p);
        for (; i < n && p.n_updates < SWIM_MAX_UPDATES; i++) p.updates[p.n_updates++] = member_update(a, members[i]);
        size_t fitted = 0;
        if (transmit(a, to, &p, &fitted) != 0 || fitted == 0) return;
        i -= p.n_updates - fitted; /* what did not fit goes into the next packet */
    }
}

/* A sync request carries our own alive, so the other side learns about us as it answers. */
static int request_sync(swim_agent_t *a, const char *addr) {
    swim_packet_t p;
    swim_agent_packet(a, PKT_SYNC, 0, &p);
    p.updates[0] = member_update(a, swim_self(a->cluster));
    p.n_updates = 1;
    return swim_agent_send(a, addr, &p);
}

int swim_agent_join(swim_agent_t *a, const char *const *seeds, size_t n_seeds) {
    int sent = 0, others = 0, last = 0;
    for (size_t i = 0; i < n_seeds; i++) {
        if (strcmp(seeds[i], a->addr) == 0) continue; /* the first node lists itself */
        others++;
        if (a->n_seeds < 8 && strlen(seeds[i]) < sizeof a->seeds[0])
            snprintf(a->seeds[a->n_seeds++], sizeof a->seeds[0], "%s", seeds[i]);
        last = request_sync(a, seeds[i]);
        if (last == 0) sent++;
    }
    return sent > 0 || others == 0 ? 0 : last;
}

/* Anti-entropy: a full exchange with the next live member in turn; when there is none (a
 * partition, or everyone we knew restarted), the seeds are asked again. */
static void push_pull(swim_agent_t *a, uint64_t now) {
    if (a->opts.pushpull_interval_ms == 0 || now < a->next_pushpull_ms || a->left) return;
    a->next_pushpull_ms = now + a->opts.pushpull_interval_ms;
    swim_member_t *members[SWIM_MAX_MEMBERS], *live[SWIM_MAX_MEMBERS];
    size_t n = swim_members(a->cluster, members, SWIM_MAX_MEMBERS), n_live = 0;
    for (size_t i = 0; i < n; i++)
        if (members[i] != swim_self(a->cluster) && members[i]->state == SWIM_ALIVE) live[n_live++] = members[i];
    if (n_live > 0) {
        if (request_sync(a, live[a->pushpull_cursor++ % n_live]->addr) == 0) a->metrics.pushpulls++;
        return;
    }
    if (a->n_seeds == 0) return;
    swim_log(a->cluster, "INFO", "no live members, contacting %zu seeds again", a->n_seeds);
    for (size_t i = 0; i < a->n_seeds; i++) request_sync(a, a->seeds[i]);
    a->metrics.rejoins++;
}

static void apply_updates(swim_agent_t *a, const swim_packet_t *p, uint64_t now) {
    for (size_t i = 0; i < p->n_updates; i++) {
        const swim_msg_t *msg = &p->updates[i];
        swim_member_t *m = swim_find(a->cluster, msg->node);
        if (m && m != swim_self(a->cluster) && msg->type == MSG_SUSPECT && m->state == SWIM_SUSPECT &&
            msg->incarnation == m->incarnation) {
            if (swim_suspicion_confirm(&a->suspicions, m, msg->from)) a->metrics.suspicion_confirmations++;
            continue;
        }
        int changed = swim_apply(a->cluster, msg, now);
        m = swim_find(a->cluster, msg->node);
        if (changed == 1 && m && m->state == SWIM_SUSPECT && m != swim_self(a->cluster))
            swim_suspicion_start(&a->suspicions, m->name, m->incarnation, msg->from, now);
    }
}

static void deliver_events(swim_agent_t *a, const swim_packet_t *p) {
    for (size_t i = 0; i < p->n_events; i++) {
        if (!swim_events_receive(&a->events, &p->events[i], swim_agent_transmits(a))) continue;
        a->metrics.events_delivered++;
        if (a->on_event)
            a->on_event(a->on_event_arg, p->events[i].name, p->events[i].payload, p->events[i].payload_len,
                        p->events[i].ltime);
    }
}

static void handle_packet(swim_agent_t *a, const char *buf, size_t len, const char *from, uint64_t now) {
    swim_packet_t p;
    a->metrics.packets_in++;
    a->metrics.bytes_in += len;
    if (a->opts.keyring) {
        int body = swim_keyring_verify(a->opts.keyring, buf, len);
        if (body < 0) {
            a->metrics.auth_failures++;
            swim_log(a->cluster, "DEBUG", "dropping packet from %s: no key of the keyring signed it", from);
            return;
        }
        len = (size_t)body;
    }
    if (swim_packet_decode(buf, len, &p) != 0) {
        a->metrics.decode_errors++;
        swim_log(a->cluster, "DEBUG", "dropping malformed packet of %zu bytes from %s", len, from);
        return;
    }
    apply_updates(a, &p, now);
    deliver_events(a, &p);
    if (p.type == PKT_SYNC) send_member_list(a, from);
    else if (p.type != PKT_SYNC_REPLY) swim_detector_on_packet(a, &p, from, now);
}

static swim_seen_t *seen_entry(swim_agent_t *a, const char *name) {
    for (size_t i = 0; i < a->n_seen; i++)
        if (strcmp(a->seen[i].name, name) == 0) return &a->seen[i];
    return NULL;
}

/* Compares every member with the previous step: counts transitions, keeps the suspicion
 * table in step, and tells the application. */
static void notice_changes(swim_agent_t *a, uint64_t now) {
    swim_member_t *members[SWIM_MAX_MEMBERS];
    size_t n = swim_members(a->cluster, members, SWIM_MAX_MEMBERS);
    for (size_t i = 0; i < n; i++) {
        swim_member_t *m = members[i];
        swim_seen_t *s = seen_entry(a, m->name);
        int joined = s == NULL;
        if (joined) {
            if (a->n_seen == SWIM_MAX_MEMBERS) continue;
            s = &a->seen[a->n_seen++];
            snprintf(s->name, sizeof s->name, "%s", m->name);
            s->state = m->state;
            a->metrics.joins++;
        } else if (s->state == m->state) {
            continue;
        }
        swim_state_t old = s->state;
        if (m->state == SWIM_SUSPECT) {
            a->metrics.suspicions++;
            /* Suspected by our own probe: apply_updates saw no message to start it from. */
            if (!swim_suspicion_find(&a->suspicions, m->name))
                swim_suspicion_start(&a->suspicions, m->name, m->incarnation, a->name, now);
        } else {
            if (old == SWIM_SUSPECT) swim_suspicion_clear(&a->suspicions, m->name);
            if (m->state == SWIM_DEAD) a->metrics.deaths++;
            if (m->state == SWIM_ALIVE && old != SWIM_ALIVE) a->metrics.recoveries++;
        }
        s->state = m->state;
        if (a->on_member) a->on_member(a->on_member_arg, m, old, joined);
    }
    uint32_t inc = swim_self(a->cluster)->incarnation;
    if (inc != a->seen_self_incarnation) {
        a->metrics.refutations++;
        swim_awareness_apply(&a->awareness, 1);
        a->seen_self_incarnation = inc;
    }
}

int swim_agent_step(swim_agent_t *a, int timeout_ms) {
    char buf[SWIM_MAX_PACKET + 1], from[SWIM_ADDR_LEN];
    uint64_t now = swim_agent_now(a);
    uint64_t until = now + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
    uint64_t due = swim_detector_next_deadline(&a->detector);
    if (due < until) until = due > now ? due : now;
    for (;;) {
        int wait = until > now ? (int)(until - now) : 0;
        ssize_t n = swim_transport_recv(&a->transport, wait, buf, sizeof buf, from, sizeof from);
        now = swim_agent_now(a);
        if (n < 0) return (int)n;
        if (n == 0) break;
        handle_packet(a, buf, (size_t)n, from, now);
        if (now >= until) break;
    }
    swim_detector_tick(a, now);
    swim_tick(a->cluster, now);
    push_pull(a, now);
    notice_changes(a, now);
    return 0;
}

int swim_agent_leave(swim_agent_t *a) {
    swim_member_t *self = swim_self(a->cluster);
    swim_msg_t dead = member_update(a, self);
    dead.type = MSG_DEAD;
    swim_broadcast(a->cluster, &dead);
    a->left = 1;
    /* Tell a few members directly instead of waiting for the next probes to carry it. */
    swim_member_t *members[SWIM_MAX_MEMBERS];
    size_t n = swim_members(a->cluster, members, SWIM_MAX_MEMBERS);
    int told = 0;
    for (size_t i = 0; i < n && told < a->opts.retransmit_mult; i++) {
        if (members[i] == self || members[i]->state != SWIM_ALIVE) continue;
        swim_packet_t p;
        swim_agent_packet(a, PKT_PING, ++a->detector.next_seq, &p);
        if (swim_agent_send(a, members[i]->addr, &p) == 0) told++;
    }
    swim_log(a->cluster, "INFO", "left the cluster, told %d members", told);
    return 0;
}

int swim_agent_send_event(swim_agent_t *a, const char *name, const void *payload, size_t len) {
    int rc = swim_events_create(&a->events, name, payload, len, swim_agent_transmits(a), NULL);
    if (rc == 0) a->metrics.events_sent++;
    return rc;
}

void swim_agent_on_member_event(swim_agent_t *a, swim_member_event_fn fn, void *arg) {
    a->on_member = fn;
    a->on_member_arg = arg;
}

void swim_agent_on_user_event(swim_agent_t *a, swim_user_event_fn fn, void *arg) {
    a->on_event = fn;
    a->on_event_arg = arg;
}

swim_cluster_t *swim_agent_cluster(swim_agent_t *a) { return a->cluster; }

const char *swim_agent_address(const swim_agent_t *a) { return a->addr; }

size_t swim_agent_stats(swim_agent_t *a, char *buf, size_t len) {
    return swim_metrics_format(&a->metrics, a->cluster, a->awareness.score, buf, len);
}
