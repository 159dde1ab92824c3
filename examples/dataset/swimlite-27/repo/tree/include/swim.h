#ifndef SWIM_H
#define SWIM_H

#include <stdint.h>
#include <stddef.h>

#define SWIM_MAX_MEMBERS 256
#define SWIM_NAME_LEN 64

typedef enum { SWIM_ALIVE = 0, SWIM_SUSPECT = 1, SWIM_DEAD = 2 } swim_state_t;

typedef struct {
    char name[SWIM_NAME_LEN];
    char addr[48];
    uint32_t incarnation;
    swim_state_t state;
    uint64_t state_change_ms; /* when the state last changed */
    uint64_t suspect_deadline_ms;
} swim_member_t;

typedef enum { MSG_ALIVE = 1, MSG_SUSPECT = 2, MSG_DEAD = 3 } swim_msg_type_t;

/* A membership update, gossiped piggybacked on pings and acks. */
typedef struct {
    swim_msg_type_t type;
    char node[SWIM_NAME_LEN];   /* the member the update is about */
    char from[SWIM_NAME_LEN];   /* who started the update */
    char addr[48];
    uint32_t incarnation;
} swim_msg_t;

typedef struct swim_cluster swim_cluster_t;

typedef void (*swim_log_fn)(const char *level, const char *fmt, ...);

typedef struct {
    const char *self_name;
    const char *self_addr;
    uint64_t suspicion_timeout_ms;
    uint64_t probe_interval_ms;
    int retransmit_mult;
    swim_log_fn log;
} swim_config_t;

swim_cluster_t *swim_new(const swim_config_t *cfg);
void swim_free(swim_cluster_t *c);

/* member.c */
swim_member_t *swim_find(swim_cluster_t *c, const char *name);
swim_member_t *swim_self(swim_cluster_t *c);
size_t swim_members(swim_cluster_t *c, swim_member_t **out, size_t max);
int swim_apply(swim_cluster_t *c, const swim_msg_t *msg, uint64_t now_ms);

/* gossip.c */
void swim_broadcast(swim_cluster_t *c, const swim_msg_t *msg);
size_t swim_take_broadcasts(swim_cluster_t *c, swim_msg_t *out, size_t max);
int swim_encode(const swim_msg_t *msg, char *buf, size_t len);
int swim_decode(const char *buf, size_t len, swim_msg_t *msg);

/* probe.c */
const swim_member_t *swim_next_probe_target(swim_cluster_t *c);
void swim_on_probe_failed(swim_cluster_t *c, const char *name, uint64_t now_ms);
void swim_tick(swim_cluster_t *c, uint64_t now_ms);

#endif
