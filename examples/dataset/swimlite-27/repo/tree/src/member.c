/*
 * Membership state: applying alive, suspect and dead updates with SWIM's incarnation
 * rules. An update about a member is newer than what we know when its incarnation is
 * higher; at equal incarnation, suspect beats alive and dead beats both. A member that
 * hears it is suspected refutes by gossiping alive with a higher incarnation.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *state_name(swim_state_t s) {
    switch (s) {
    case SWIM_ALIVE: return "alive";
    case SWIM_SUSPECT: return "suspect";
    default: return "dead";
    }
}

void swim_log(swim_cluster_t *c, const char *level, const char *fmt, ...) {
    char line[512];
    va_list ap;
    if (!c->cfg.log) return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    c->cfg.log(level, "%s", line);
}

swim_cluster_t *swim_new(const swim_config_t *cfg) {
    swim_cluster_t *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->cfg = *cfg;
    if (c->cfg.retransmit_mult <= 0) c->cfg.retransmit_mult = 4;
    swim_add_member(c, cfg->self_name, cfg->self_addr, 0, 0);
    c->self_index = 0;
    return c;
}

void swim_free(swim_cluster_t *c) { free(c); }

swim_member_t *swim_find(swim_cluster_t *c, const char *name) {
    for (size_t i = 0; i < c->n_members; i++)
        if (strcmp(c->members[i].name, name) == 0) return &c->members[i];
    return NULL;
}

swim_member_t *swim_self(swim_cluster_t *c) { return &c->members[c->self_index]; }

size_t swim_members(swim_cluster_t *c, swim_member_t **out, size_t max) {
    size_t n = 0;
    for (size_t i = 0; i < c->n_members && n < max; i++) out[n++] = &c->members[i];
    return n;
}

swim_member_t *swim_add_member(swim_cluster_t *c, const char *name, const char *addr,
                               uint32_t incarnation, uint64_t now_ms) {
    if (c->n_members >= SWIM_MAX_MEMBERS) return NULL;
    swim_member_t *m = &c->members[c->n_members++];
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    snprintf(m->addr, sizeof m->addr, "%s", addr ? addr : "");
    m->incarnation = incarnation;
    m->state = SWIM_ALIVE;
    m->state_change_ms = now_ms;
    return m;
}

static void set_state(swim_cluster_t *c, swim_member_t *m, swim_state_t s, uint32_t inc, uint64_t now_ms) {
    if (m->state != s)
        swim_log(c, "INFO", "member %s: %s -> %s (incarnation %u)", m->name, state_name(m->state), state_name(s), inc);
    m->state = s;
    m->incarnation = inc;
    m->state_change_ms = now_ms;
}

/* Gossips that we are alive with our current incarnation. */
static void refute(swim_cluster_t *c, uint64_t now_ms) {
    swim_member_t *self = swim_self(c);
    swim_msg_t alive = {.type = MSG_ALIVE, .incarnation = self->incarnation};
    snprintf(alive.node, sizeof alive.node, "%s", self->name);
    snprintf(alive.from, sizeof alive.from, "%s", self->name);
    snprintf(alive.addr, sizeof alive.addr, "%s", self->addr);
    self->state_change_ms = now_ms;
    swim_broadcast(c, &alive);
}

static int apply_alive(swim_cluster_t *c, const swim_msg_t *msg, uint64_t now_ms) {
    swim_member_t *m = swim_find(c, msg->node);
    if (!m) {
        m = swim_add_member(c, msg->node, msg->addr, msg->incarnation, now_ms);
        if (!m) return -1;
        swim_log(c, "INFO", "member %s joined (incarnation %u)", msg->node, msg->incarnation);
        swim_broadcast(c, msg);
        return 1;
    }
    if (m == swim_self(c)) {
        /* Others telling us we are alive: nothing to do. */
        return 0;
    }
    if (msg->incarnation <= m->incarnation && m->state != SWIM_DEAD) {
        swim_log(c, "DEBUG", "ignoring alive for %s: incarnation %u <= %u", m->name, msg->incarnation, m->incarnation);
        return 0;
    }
    set_state(c, m, SWIM_ALIVE, msg->incarnation, now_ms);
    snprintf(m->addr, sizeof m->addr, "%s", msg->addr);
    m->suspect_deadline_ms = 0;
    swim_broadcast(c, msg);
    return 1;
}

static int apply_suspect(swim_cluster_t *c, const swim_msg_t *msg, uint64_t now_ms) {
    swim_member_t *m = swim_find(c, msg->node);
    if (!m) return 0; /* we do not know it: ignore */
    if (msg->incarnation < m->incarnation) return 0;

    if (m == swim_self(c)) {
        swim_member_t *self = swim_self(c);
        self->incarnation++;
        swim_log(c, "WARN", "suspected by %s at incarnation %u, refuting with incarnation %u",
                 msg->from, msg->incarnation, self->incarnation);
        refute(c, now_ms);
        return 1;
    }
    if (m->state == SWIM_DEAD) return 0;
    if (m->state == SWIM_SUSPECT && msg->incarnation == m->incarnation) return 0;

    set_state(c, m, SWIM_SUSPECT, msg->incarnation, now_ms);
    m->suspect_deadline_ms = now_ms + c->cfg.suspicion_timeout_ms;
    swim_broadcast(c, msg);
    return 1;
}

static int apply_dead(swim_cluster_t *c, const swim_msg_t *msg, uint64_t now_ms) {
    swim_member_t *m = swim_find(c, msg->node);
    if (!m || m->state == SWIM_DEAD) return 0;
    if (msg->incarnation < m->incarnation) return 0;
    if (m == swim_self(c)) {
        swim_member_t *self = swim_self(c);
        self->incarnation = msg->incarnation + 1;
        swim_log(c, "WARN", "declared dead by %s, refuting with incarnation %u", msg->from, self->incarnation);
        refute(c, now_ms);
        return 1;
    }
    set_state(c, m, SWIM_DEAD, msg->incarnation, now_ms);
    swim_broadcast(c, msg);
    return 1;
}

int swim_apply(swim_cluster_t *c, const swim_msg_t *msg, uint64_t now_ms) {
    switch (msg->type) {
    case MSG_ALIVE: return apply_alive(c, msg, now_ms);
    case MSG_SUSPECT: return apply_suspect(c, msg, now_ms);
    case MSG_DEAD: return apply_dead(c, msg, now_ms);
    }
    return -1;
}
