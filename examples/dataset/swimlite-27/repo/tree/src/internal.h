#ifndef SWIM_INTERNAL_H
#define SWIM_INTERNAL_H

#include "swim.h"

#define SWIM_MAX_BROADCASTS 128

typedef struct {
    swim_msg_t msg;
    int transmits_left;
} swim_broadcast_t;

struct swim_cluster {
    swim_config_t cfg;
    swim_member_t members[SWIM_MAX_MEMBERS];
    size_t n_members;
    size_t self_index;
    swim_broadcast_t queue[SWIM_MAX_BROADCASTS];
    size_t n_queue;
    size_t probe_cursor;
    uint64_t last_probe_ms;
};

swim_member_t *swim_add_member(swim_cluster_t *c, const char *name, const char *addr,
                               uint32_t incarnation, uint64_t now_ms);
void swim_log(swim_cluster_t *c, const char *level, const char *fmt, ...);

#endif
