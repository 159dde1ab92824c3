/*
 * The datagrams of the protocol. Every packet carries a header, the membership updates
 * piggybacked on it, and user events:
 *   "SW" (2) | version (1) | type (1) | sequence (4) | from (s8) | target (s8) | target addr (s8)
 *   | update count (1) | updates, each an s8 holding swim_encode() text
 *   | event count (1) | events, each Lamport time (4) | name (s8) | payload (s16)
 * where s8/s16 are strings with a 1- or 2-byte length. Integers are big-endian.
 */
#ifndef SWIM_PACKET_H
#define SWIM_PACKET_H

#include <stddef.h>
#include <stdint.h>

#include "swim.h"

#define SWIM_MAX_PACKET 1400 /* below a typical MTU so packets are never fragmented */
#define SWIM_MAX_UPDATES 16
#define SWIM_MAX_EVENTS 4
#define SWIM_EVENT_NAME_LEN 32
#define SWIM_EVENT_PAYLOAD_LEN 256

typedef enum {
    PKT_PING = 1,       /* are you there? answered by an ack with the same sequence */
    PKT_ACK = 2,
    PKT_PING_REQ = 3,   /* please ping target for me */
    PKT_NACK = 4,       /* I pinged target for you and heard nothing */
    PKT_SYNC = 5,       /* a joining node asks for the whole member list */
    PKT_SYNC_REPLY = 6, /* part of the member list as updates */
} swim_packet_type_t;

typedef struct {
    uint32_t ltime;
    char name[SWIM_EVENT_NAME_LEN];
    char payload[SWIM_EVENT_PAYLOAD_LEN];
    size_t payload_len;
} swim_user_event_t;

typedef struct {
    swim_packet_type_t type;
    uint32_t seq;
    char from[SWIM_NAME_LEN];
    char target[SWIM_NAME_LEN];
    char target_addr[48];
    swim_msg_t updates[SWIM_MAX_UPDATES];
    size_t n_updates;
    swim_user_event_t events[SWIM_MAX_EVENTS];
    size_t n_events;
} swim_packet_t;

const char *swim_packet_type_name(swim_packet_type_t t);

/* Encodes as many updates and events as fit in cap; *n_updates_written and
 * *n_events_written (when not NULL) say how many. Returns the length or -EMSGSIZE when not
 * even the header fits. */
int swim_packet_encode(const swim_packet_t *p, char *buf, size_t cap, size_t *n_updates_written,
                       size_t *n_events_written);

/* -EBADMSG for anything that is not a whole, well-formed packet of a known version. */
int swim_packet_decode(const char *buf, size_t len, swim_packet_t *p);

#endif
