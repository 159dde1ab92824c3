/* Piggybacked broadcasts and the wire format of updates. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Queues an update; a newer update about the same member replaces the queued one. */
void swim_broadcast(swim_cluster_t *c, const swim_msg_t *msg) {
    int transmits = c->cfg.retransmit_mult;
    for (size_t n = c->n_members; n > 1; n /= 2) transmits++;
    for (size_t i = 0; i < c->n_queue; i++) {
        if (strcmp(c->queue[i].msg.node, msg->node) == 0) {
            c->queue[i].msg = *msg;
            c->queue[i].transmits_left = transmits;
            return;
        }
    }
    if (c->n_queue == SWIM_MAX_BROADCASTS) {
        swim_log(c, "WARN", "broadcast queue full, dropping oldest update about %s", c->queue[0].msg.node);
        memmove(&c->queue[0], &c->queue[1], (SWIM_MAX_BROADCASTS - 1) * sizeof c->queue[0]);
        c->n_queue--;
    }
    c->queue[c->n_queue].msg = *msg;
    c->queue[c->n_queue].transmits_left = transmits;
    c->n_queue++;
}

/* Takes up to max updates to piggyback on the next message, oldest first. */
size_t swim_take_broadcasts(swim_cluster_t *c, swim_msg_t *out, size_t max) {
    size_t n = 0;
    for (size_t i = 0; i < c->n_queue && n < max; i++) {
        out[n++] = c->queue[i].msg;
        c->queue[i].transmits_left--;
    }
    size_t kept = 0;
    for (size_t i = 0; i < c->n_queue; i++)
        if (c->queue[i].transmits_left > 0) c->queue[kept++] = c->queue[i];
    c->n_queue = kept;
    return n;
}

/* "<type> <node> <incarnation> <from> <addr>" */
int swim_encode(const swim_msg_t *msg, char *buf, size_t len) {
    int n = snprintf(buf, len, "%d %s %u %s %s", (int)msg->type, msg->node, msg->incarnation, msg->from,
                     msg->addr[0] ? msg->addr : "-");
    return (n < 0 || (size_t)n >= len) ? -1 : n;
}

int swim_decode(const char *buf, size_t len, swim_msg_t *msg) {
    char tmp[256];
    int type;
    if (len >= sizeof tmp) return -1;
    memcpy(tmp, buf, len);
    tmp[len] = '\0';
    memset(msg, 0, sizeof *msg);
    if (sscanf(tmp, "%d %63s %u %63s %47s", &type, msg->node, &msg->incarnation, msg->from, msg->addr) != 5)
        return -1;
    if (type < MSG_ALIVE || type > MSG_DEAD) return -1;
    msg->type = (swim_msg_type_t)type;
    if (strcmp(msg->addr, "-") == 0) msg->addr[0] = '\0';
    return 0;
}
