/* Three agents on loopback UDP with a test clock: they find each other through a seed,
 * spread a user event, and declare a member that stops answering dead. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "control.h"
#include "swim_agent.h"

static uint64_t fake_now = 1000000;
static swim_keyring_t keyring;
static uint64_t test_clock(void) { return fake_now; }

static int events_seen;
static void on_event(void *arg, const char *name, const char *payload, size_t len, uint32_t ltime) {
    (void)arg;
    (void)ltime;
    if (strcmp(name, "deploy") == 0 && len == 4 && memcmp(payload, "v2.3", 4) == 0) events_seen++;
}

static swim_agent_t *start(const char *name) {
    swim_agent_options_t o;
    swim_agent_options_defaults(&o);
    o.name = name;
    o.bind_addr = "127.0.0.1:0";
    o.probe_interval_ms = 200;
    o.probe_timeout_ms = 100;
    o.suspicion_timeout_ms = 1000;
    o.indirect_checks = 1;
    o.clock_ms = test_clock;
    o.keyring = &keyring;
    swim_agent_t *a = NULL;
    assert(swim_agent_new(&o, &a) == 0);
    swim_agent_on_user_event(a, on_event, NULL);
    return a;
}

static int count_in_state(swim_agent_t *a, swim_state_t state) {
    swim_member_t *members[SWIM_MAX_MEMBERS];
    size_t n = swim_members(swim_agent_cluster(a), members, SWIM_MAX_MEMBERS);
    int count = 0;
    for (size_t i = 0; i < n; i++) count += members[i]->state == state;
    return count;
}

/* Steps the running agents, 50 ms of test time per round, until done() or a round limit. */
static int run(swim_agent_t **agents, size_t n, int (*done)(swim_agent_t **), int max_rounds) {
    for (int round = 0; round < max_rounds; round++) {
        if (done(agents)) return round;
        fake_now += 50;
        for (size_t i = 0; i < n; i++) assert(swim_agent_step(agents[i], 5) == 0);
    }
    return -1;
}

static int all_alive(swim_agent_t **a) {
    return count_in_state(a[0], SWIM_ALIVE) == 3 && count_in_state(a[1], SWIM_ALIVE) == 3 &&
           count_in_state(a[2], SWIM_ALIVE) == 3;
}

static int event_everywhere(swim_agent_t **a) {
    (void)a;
    return events_seen == 2;
}

static int c_dead(swim_agent_t **a) { return count_in_state(a[0], SWIM_DEAD) == 1 && count_in_state(a[1], SWIM_DEAD) == 1; }

/* The control socket's commands, run without the socket. */
static void test_control_commands(swim_agent_t *a) {
    swim_control_t control = {.fd = -1};
    char out[4096];
    assert(swim_control_execute(&control, a, "members", out, sizeof out) == 0);
    assert(strstr(out, "a ") == out && strstr(out, "alive") && strstr(out, "dead"));
    assert(swim_control_execute(&control, a, "event deploy v2.4", out, sizeof out) == 0 && strcmp(out, "ok\n") == 0);
    assert(swim_control_execute(&control, a, "event", out, sizeof out) != 0);
    assert(swim_control_execute(&control, a, "reboot", out, sizeof out) != 0 && strstr(out, "unknown command"));
    assert(swim_control_execute(&control, a, "leave", out, sizeof out) == 0 && control.leave_requested);
}

int main(void) {
    unsigned char key[SWIM_KEY_LEN] = {7};
    assert(swim_keyring_add(&keyring, key) == 0);
    swim_agent_t *agents[3] = {start("a"), start("b"), start("c")};
    const char *seed = swim_agent_address(agents[0]);
    assert(swim_agent_join(agents[1], &seed, 1) == 0);
    assert(swim_agent_join(agents[2], &seed, 1) == 0);
    assert(run(agents, 3, all_alive, 200) >= 0);

    assert(swim_agent_send_event(agents[0], "deploy", "v2.3", 4) == 0);
    assert(run(agents, 3, event_everywhere, 200) >= 0);

    /* c stops answering: only a and b keep running. */
    assert(run(agents, 2, c_dead, 400) >= 0);
    char stats[4096];
    swim_agent_stats(agents[0], stats, sizeof stats);
    assert(strstr(stats, "members_dead 1\n") && strstr(stats, "deaths 1\n") && strstr(stats, "auth_failures 0\n"));
    test_control_commands(agents[0]);

    for (int i = 0; i < 3; i++) swim_agent_free(agents[i]);
    puts("test_agent passed");
    return 0;
}
