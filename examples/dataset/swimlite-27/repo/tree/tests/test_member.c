#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "swim.h"

static swim_msg_t msg(swim_msg_type_t type, const char *node, uint32_t inc) {
    swim_msg_t m = {.type = type, .incarnation = inc};
    snprintf(m.node, sizeof m.node, "%s", node);
    snprintf(m.from, sizeof m.from, "%s", "test");
    return m;
}

int main(void) {
    swim_config_t cfg = {.self_name = "a", .self_addr = "127.0.0.1:7946", .suspicion_timeout_ms = 100};
    swim_cluster_t *c = swim_new(&cfg);
    swim_msg_t join = msg(MSG_ALIVE, "b", 1);
    assert(swim_apply(c, &join, 0) == 1);
    swim_msg_t sus = msg(MSG_SUSPECT, "b", 1);
    assert(swim_apply(c, &sus, 10) == 1);
    assert(swim_find(c, "b")->state == SWIM_SUSPECT);
    swim_msg_t alive = msg(MSG_ALIVE, "b", 2);
    assert(swim_apply(c, &alive, 20) == 1);
    assert(swim_find(c, "b")->state == SWIM_ALIVE);
    swim_tick(c, 500);
    assert(swim_find(c, "b")->state == SWIM_ALIVE);
    swim_free(c);
    puts("test_member passed");
    return 0;
}
