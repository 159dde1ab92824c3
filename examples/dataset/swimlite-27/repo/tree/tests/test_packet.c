#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "packet.h"

static swim_msg_t update(swim_msg_type_t type, const char *node, uint32_t inc) {
    swim_msg_t m = {.type = type, .incarnation = inc};
    snprintf(m.node, sizeof m.node, "%s", node);
    snprintf(m.from, sizeof m.from, "%s", "node3");
    snprintf(m.addr, sizeof m.addr, "%s", type == MSG_ALIVE ? "10.8.0.17:7946" : "");
    return m;
}

static void test_round_trip(void) {
    swim_packet_t p = {.type = PKT_PING_REQ, .seq = 4242};
    snprintf(p.from, sizeof p.from, "node3");
    snprintf(p.target, sizeof p.target, "node7");
    snprintf(p.target_addr, sizeof p.target_addr, "10.8.0.17:7946");
    p.updates[p.n_updates++] = update(MSG_SUSPECT, "node7", 41);
    p.updates[p.n_updates++] = update(MSG_ALIVE, "node2", 12);
    p.events[0].ltime = 9;
    snprintf(p.events[0].name, sizeof p.events[0].name, "deploy");
    memcpy(p.events[0].payload, "v2.3", 4);
    p.events[0].payload_len = 4;
    p.n_events = 1;

    char buf[SWIM_MAX_PACKET];
    size_t updates = 0, events = 0;
    int len = swim_packet_encode(&p, buf, sizeof buf, &updates, &events);
    assert(len > 0 && updates == 2 && events == 1);
    swim_packet_t q;
    assert(swim_packet_decode(buf, (size_t)len, &q) == 0);
    assert(q.type == PKT_PING_REQ && q.seq == 4242 && strcmp(q.target, "node7") == 0);
    assert(strcmp(q.target_addr, "10.8.0.17:7946") == 0);
    assert(q.n_updates == 2 && q.updates[0].type == MSG_SUSPECT && q.updates[0].incarnation == 41);
    assert(strcmp(q.updates[1].addr, "10.8.0.17:7946") == 0);
    assert(q.n_events == 1 && q.events[0].ltime == 9 && memcmp(q.events[0].payload, "v2.3", 4) == 0);

    /* Every truncation is rejected, not half read. */
    for (int cut = 0; cut < len; cut++) assert(swim_packet_decode(buf, (size_t)cut, &q) == -EBADMSG);
    buf[2] = 9; /* unknown version */
    assert(swim_packet_decode(buf, (size_t)len, &q) == -EBADMSG);
}

static void test_updates_that_do_not_fit_are_left_out(void) {
    swim_packet_t p = {.type = PKT_ACK, .seq = 1};
    snprintf(p.from, sizeof p.from, "node1");
    for (int i = 0; i < SWIM_MAX_UPDATES; i++) {
        char name[64];
        snprintf(name, sizeof name, "a-rather-long-member-name-to-fill-the-packet-%02d", i);
        p.updates[p.n_updates++] = update(MSG_ALIVE, name, (uint32_t)i);
    }
    char buf[600];
    size_t updates = 0;
    int len = swim_packet_encode(&p, buf, sizeof buf, &updates, NULL);
    assert(len > 0 && (size_t)len <= sizeof buf);
    assert(updates > 0 && updates < SWIM_MAX_UPDATES);
    swim_packet_t q;
    assert(swim_packet_decode(buf, (size_t)len, &q) == 0 && q.n_updates == updates);
}

int main(void) {
    test_round_trip();
    test_updates_that_do_not_fit_are_left_out();
    puts("test_packet passed");
    return 0;
}
