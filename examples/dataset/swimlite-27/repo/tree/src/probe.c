/* Failure detection: round-robin probes, suspicion on a failed probe, death on timeout. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

const swim_member_t *swim_next_probe_target(swim_cluster_t *c) {
    for (size_t tries = 0; tries < c->n_members; tries++) {
        size_t i = c->probe_cursor++ % c->n_members;
        const swim_member_t *m = &c->members[i];
        if (i != c->self_index && m->state != SWIM_DEAD) return m;
    }
    return NULL;
}

/* A direct probe and the indirect probes through k members all failed. */
void swim_on_probe_failed(swim_cluster_t *c, const char *name, uint64_t now_ms) {
    swim_member_t *m = swim_find(c, name);
    if (!m || m->state != SWIM_ALIVE) return;
    swim_msg_t suspect = {.type = MSG_SUSPECT, .incarnation = m->incarnation};
    snprintf(suspect.node, sizeof suspect.node, "%s", m->name);
    snprintf(suspect.from, sizeof suspect.from, "%s", swim_self(c)->name);
    swim_log(c, "INFO", "probe of %s failed, suspecting it (incarnation %u)", m->name, m->incarnation);
    swim_apply(c, &suspect, now_ms);
}

/* Declares dead every suspect whose suspicion timed out without a refutation. */
void swim_tick(swim_cluster_t *c, uint64_t now_ms) {
    for (size_t i = 0; i < c->n_members; i++) {
        swim_member_t *m = &c->members[i];
        if (m->state != SWIM_SUSPECT || m->suspect_deadline_ms == 0 || now_ms < m->suspect_deadline_ms) continue;
        swim_msg_t dead = {.type = MSG_DEAD, .incarnation = m->incarnation};
        snprintf(dead.node, sizeof dead.node, "%s", m->name);
        snprintf(dead.from, sizeof dead.from, "%s", swim_self(c)->name);
        swim_log(c, "WARN", "suspicion of %s timed out after %llu ms, declaring it dead", m->name,
                 (unsigned long long)c->cfg.suspicion_timeout_ms);
        swim_apply(c, &dead, now_ms);
    }
    c->last_probe_ms = now_ms;
}
