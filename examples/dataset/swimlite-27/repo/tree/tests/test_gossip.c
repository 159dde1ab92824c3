/* The piggyback queue and the update wire format of gossip.c. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static swim_msg_t update(swim_msg_type_t type, const char *node, uint32_t inc) {
    swim_msg_t m = {.type = type, .incarnation = inc};
    snprintf(m.node, sizeof m.node, "%s", node);
    snprintf(m.from, sizeof m.from, "%s", "node1");
    return m;
}

static void test_newer_update_replaces_queued_one(swim_cluster_t *c) {
    swim_msg_t suspect = update(MSG_SUSPECT, "node2", 3), alive = update(MSG_ALIVE, "node2", 4);
    swim_broadcast(c, &suspect);
    swim_broadcast(c, &alive);
    swim_msg_t out[8];
    size_t n = swim_take_broadcasts(c, out, 8);
    /* Only the latest update about node2 goes out. */
    assert(n == 1 && out[0].type == MSG_ALIVE && out[0].incarnation == 4);
}

static void test_transmits_run_out(swim_cluster_t *c) {
    swim_msg_t dead = update(MSG_DEAD, "node3", 1);
    swim_broadcast(c, &dead);
    swim_msg_t out[8];
    size_t sends = 0;
    while (swim_take_broadcasts(c, out, 8) > 0) sends++;
    /* retransmit_mult plus log2 of the member count, which is 1 here. */
    assert(sends == (size_t)c->cfg.retransmit_mult);
}

static void test_full_queue_drops_oldest(swim_cluster_t *c) {
    char name[32];
    for (int i = 0; i < SWIM_MAX_BROADCASTS + 5; i++) {
        snprintf(name, sizeof name, "m%03d", i);
        swim_msg_t m = update(MSG_ALIVE, name, 1);
        swim_broadcast(c, &m);
    }
    assert(c->n_queue == SWIM_MAX_BROADCASTS);
    assert(strcmp(c->queue[0].msg.node, "m005") == 0);
    swim_msg_t out[SWIM_MAX_BROADCASTS];
    while (swim_take_broadcasts(c, out, SWIM_MAX_BROADCASTS) > 0) {
    }
}

static void test_wire_format(void) {
    swim_msg_t m = update(MSG_ALIVE, "node7", 42), back;
    snprintf(m.addr, sizeof m.addr, "10.8.0.17:7946");
    char buf[256];
    int n = swim_encode(&m, buf, sizeof buf);
    assert(n > 0 && strcmp(buf, "1 node7 42 node1 10.8.0.17:7946") == 0);
    assert(swim_decode(buf, (size_t)n, &back) == 0);
    assert(back.type == MSG_ALIVE && back.incarnation == 42 && strcmp(back.addr, m.addr) == 0);
    swim_msg_t no_addr = update(MSG_SUSPECT, "node7", 42);
    n = swim_encode(&no_addr, buf, sizeof buf);
    assert(swim_decode(buf, (size_t)n, &back) == 0 && back.addr[0] == '\0');
    assert(swim_decode("9 node7 1 node1 -", 17, &back) == -1);
    assert(swim_decode("1 node7", 7, &back) == -1);
    assert(swim_encode(&m, buf, 8) == -1);
}

int main(void) {
    swim_config_t cfg = {.self_name = "node1", .self_addr = "10.8.0.11:7946", .retransmit_mult = 3};
    swim_cluster_t *c = swim_new(&cfg);
    test_newer_update_replaces_queued_one(c);
    test_transmits_run_out(c);
    test_full_queue_drops_oldest(c);
    test_wire_format();
    swim_free(c);
    puts("test_gossip passed");
    return 0;
}
