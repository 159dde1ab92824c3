/* User events: small named messages an application broadcasts to every member (a deploy
 * finished, a config changed). They ride on the same packets as membership updates but in
 * their own queue, ordered by a Lamport clock, and each member delivers an event once. */
#ifndef SWIM_EVENTS_H
#define SWIM_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "packet.h"

#define SWIM_EVENT_QUEUE 32
#define SWIM_EVENT_SEEN 256

typedef struct {
    swim_user_event_t event;
    int transmits_left;
} swim_queued_event_t;

typedef struct {
    uint32_t clock;
    swim_queued_event_t queue[SWIM_EVENT_QUEUE];
    size_t n_queue;
    struct {
        uint32_t ltime;
        uint32_t digest;
    } seen[SWIM_EVENT_SEEN];
    size_t seen_next;
    uint64_t dropped; /* queued events pushed out by newer ones before all transmits */
} swim_events_t;

void swim_events_init(swim_events_t *e);

/* A new local event at the next Lamport time, queued for `transmits` sends. */
int swim_events_create(swim_events_t *e, const char *name, const void *payload, size_t len, int transmits,
                       swim_user_event_t *out);

/* An event from the network. Returns 1 when it is new (deliver it; it is queued to be passed
 * on), 0 when it was seen before or is too old to tell. */
int swim_events_receive(swim_events_t *e, const swim_user_event_t *ev, int transmits);

/* Up to max events to piggyback, oldest first. Each costs one transmit. */
size_t swim_events_take(swim_events_t *e, swim_user_event_t *out, size_t max);

#endif
