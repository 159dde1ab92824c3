#include "suspicion.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void swim_suspicions_init(swim_suspicions_t *s, uint64_t min_ms, uint64_t max_ms, int expected) {
    memset(s, 0, sizeof *s);
    s->min_ms = min_ms;
    s->max_ms = max_ms;
    s->expected = expected > 0 ? expected : 3;
}

static swim_suspicion_t *find(swim_suspicions_t *s, const char *node) {
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->entries[i].node, node) == 0) return &s->entries[i];
    return NULL;
}

const swim_suspicion_t *swim_suspicion_find(const swim_suspicions_t *s, const char *node) {
    return find((swim_suspicions_t *)s, node);
}

void swim_suspicion_start(swim_suspicions_t *s, const char *node, uint32_t incarnation, const char *from,
                          uint64_t now_ms) {
    swim_suspicion_t *e = find(s, node);
    if (!e) {
        if (s->n == SWIM_MAX_MEMBERS) return;
        e = &s->entries[s->n++];
    }
    memset(e, 0, sizeof *e);
    snprintf(e->node, sizeof e->node, "%s", node);
    e->incarnation = incarnation;
    e->started_ms = now_ms;
    /* The member that raised the suspicion does not count as a confirmation. */
    snprintf(e->confirmers[0], sizeof e->confirmers[0], "%s", from);
    e->n_confirmers = 1;
}

uint64_t swim_suspicion_timeout(const swim_suspicions_t *s, int confirmations) {
    if (s->min_ms == 0 || s->min_ms >= s->max_ms) return s->max_ms;
    double frac = log((double)confirmations + 1.0) / log((double)s->expected + 1.0);
    double timeout = (double)s->max_ms - frac * (double)(s->max_ms - s->min_ms);
    return timeout < (double)s->min_ms ? s->min_ms : (uint64_t)timeout;
}

int swim_suspicion_confirm(swim_suspicions_t *s, swim_member_t *m, const char *from) {
    swim_suspicion_t *e = find(s, m->name);
    if (!e || e->incarnation != m->incarnation || m->state != SWIM_SUSPECT) return 0;
    for (int i = 0; i < e->n_confirmers; i++)
        if (strcmp(e->confirmers[i], from) == 0) return 0;
    if (e->n_confirmers == SWIM_MAX_CONFIRMATIONS) return 0;
    snprintf(e->confirmers[e->n_confirmers], sizeof e->confirmers[0], "%s", from);
    e->n_confirmers++;
    uint64_t deadline = e->started_ms + swim_suspicion_timeout(s, e->n_confirmers - 1);
    if (deadline >= m->suspect_deadline_ms) return 0;
    m->suspect_deadline_ms = deadline;
    return 1;
}

void swim_suspicion_clear(swim_suspicions_t *s, const char *node) {
    swim_suspicion_t *e = find(s, node);
    if (!e) return;
    *e = s->entries[--s->n];
}
