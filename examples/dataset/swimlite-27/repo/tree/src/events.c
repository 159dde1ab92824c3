#include "events.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void swim_events_init(swim_events_t *e) { memset(e, 0, sizeof *e); }

/* FNV-1a over name and payload: with the Lamport time it identifies an event. */
static uint32_t digest(const swim_user_event_t *ev) {
    uint32_t h = 2166136261u;
    for (const char *p = ev->name; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    for (size_t i = 0; i < ev->payload_len; i++) h = (h ^ (unsigned char)ev->payload[i]) * 16777619u;
    return h;
}

static int seen_before(const swim_events_t *e, uint32_t ltime, uint32_t d) {
    for (size_t i = 0; i < SWIM_EVENT_SEEN; i++)
        if (e->seen[i].ltime == ltime && e->seen[i].digest == d) return 1;
    return 0;
}

static void remember(swim_events_t *e, uint32_t ltime, uint32_t d) {
    e->seen[e->seen_next].ltime = ltime;
    e->seen[e->seen_next].digest = d;
    e->seen_next = (e->seen_next + 1) % SWIM_EVENT_SEEN;
}

static void enqueue(swim_events_t *e, const swim_user_event_t *ev, int transmits) {
    if (e->n_queue == SWIM_EVENT_QUEUE) {
        memmove(&e->queue[0], &e->queue[1], (SWIM_EVENT_QUEUE - 1) * sizeof e->queue[0]);
        e->n_queue--;
        e->dropped++;
    }
    e->queue[e->n_queue].event = *ev;
    e->queue[e->n_queue].transmits_left = transmits;
    e->n_queue++;
}

int swim_events_create(swim_events_t *e, const char *name, const void *payload, size_t len, int transmits,
                       swim_user_event_t *out) {
    if (strlen(name) >= SWIM_EVENT_NAME_LEN || name[0] == '\0') return -EINVAL;
    if (len > SWIM_EVENT_PAYLOAD_LEN) return -EMSGSIZE;
    swim_user_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.ltime = ++e->clock;
    snprintf(ev.name, sizeof ev.name, "%s", name);
    memcpy(ev.payload, payload, len);
    ev.payload_len = len;
    remember(e, ev.ltime, digest(&ev));
    enqueue(e, &ev, transmits);
    if (out) *out = ev;
    return 0;
}

int swim_events_receive(swim_events_t *e, const swim_user_event_t *ev, int transmits) {
    /* Witness the sender's clock so our next event orders after this one. */
    if (ev->ltime > e->clock) e->clock = ev->ltime;
    /* Older than anything the seen buffer can still hold: a late duplicate at best. */
    if (e->clock > SWIM_EVENT_SEEN && ev->ltime < e->clock - SWIM_EVENT_SEEN) return 0;
    uint32_t d = digest(ev);
    if (seen_before(e, ev->ltime, d)) return 0;
    remember(e, ev->ltime, d);
    enqueue(e, ev, transmits);
    return 1;
}

size_t swim_events_take(swim_events_t *e, swim_user_event_t *out, size_t max) {
    size_t taken = 0, kept = 0;
    /* One pass: copy out the first max events, spend a transmit of each, and close the gaps
     * left by events that have none left. */
    for (size_t i = 0; i < e->n_queue; i++) {
        swim_queued_event_t q = e->queue[i];
        if (taken < max) {
            out[taken++] = q.event;
            if (--q.transmits_left == 0) continue;
        }
        e->queue[kept++] = q;
    }
    e->n_queue = kept;
    return taken;
}
