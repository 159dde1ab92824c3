/* Configuration, suspicion confirmations, local health and user events. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "awareness.h"
#include "config.h"
#include "events.h"
#include "suspicion.h"

static void test_config(void) {
    swimd_config_t c;
    char err[200];
    swimd_config_defaults(&c);
    assert(swimd_config_parse(&c,
                              "# node7\n"
                              "name = node7\n"
                              "bind = 10.8.0.17:7946\n"
                              "seeds = 10.8.0.13:7946, 10.8.0.11:7946\n"
                              "suspicion_timeout_ms = 5000\n",
                              err, sizeof err) == 0);
    assert(strcmp(c.name, "node7") == 0 && c.n_seeds == 2 && strcmp(c.seeds[1], "10.8.0.11:7946") == 0);
    assert(swimd_config_validate(&c, err, sizeof err) == 0);
    c.probe_timeout_ms = c.probe_interval_ms;
    assert(swimd_config_validate(&c, err, sizeof err) == -EINVAL && strstr(err, "probe_timeout_ms"));
    assert(swimd_config_parse(&c, "name = a\nprobe_intervall_ms = 5\n", err, sizeof err) == -EINVAL);
    assert(strstr(err, "line 2") && strstr(err, "probe_intervall_ms"));
}

static void test_suspicion_confirmations_shorten_the_timeout(void) {
    swim_suspicions_t s;
    swim_suspicions_init(&s, 1000, 5000, 3);
    assert(swim_suspicion_timeout(&s, 0) == 5000);
    assert(swim_suspicion_timeout(&s, 3) == 1000);
    swim_member_t m = {.incarnation = 4, .state = SWIM_SUSPECT, .suspect_deadline_ms = 15000};
    snprintf(m.name, sizeof m.name, "node7");
    swim_suspicion_start(&s, "node7", 4, "node3", 10000);
    assert(swim_suspicion_confirm(&s, &m, "node3") == 0); /* the suspector itself */
    assert(swim_suspicion_confirm(&s, &m, "node5") == 1);
    uint64_t after_one = m.suspect_deadline_ms;
    assert(after_one < 15000 && after_one > 11000);
    assert(swim_suspicion_confirm(&s, &m, "node5") == 0); /* not independent */
    assert(swim_suspicion_confirm(&s, &m, "node6") == 1 && m.suspect_deadline_ms < after_one);

    /* Disabled (no minimum): counted, deadline untouched. */
    swim_suspicions_init(&s, 0, 5000, 3);
    m.suspect_deadline_ms = 15000;
    swim_suspicion_start(&s, "node7", 4, "node3", 10000);
    assert(swim_suspicion_confirm(&s, &m, "node5") == 0 && m.suspect_deadline_ms == 15000);
}

static void test_awareness(void) {
    swim_awareness_t a;
    swim_awareness_init(&a, 8);
    assert(swim_awareness_scale(&a, 500) == 500);
    swim_awareness_apply(&a, 3);
    assert(swim_awareness_scale(&a, 500) == 2000);
    swim_awareness_apply(&a, 100);
    assert(a.score == 7);
    swim_awareness_apply(&a, -100);
    assert(a.score == 0);
}

static void test_events_are_delivered_once(void) {
    swim_events_t sender, receiver;
    swim_events_init(&sender);
    swim_events_init(&receiver);
    swim_user_event_t ev, batch[4];
    assert(swim_events_create(&sender, "deploy", "v2", 2, 2, &ev) == 0 && ev.ltime == 1);
    assert(swim_events_take(&sender, batch, 4) == 1);
    assert(swim_events_take(&sender, batch, 4) == 1);
    assert(swim_events_take(&sender, batch, 4) == 0); /* both transmits used */
    assert(swim_events_receive(&receiver, &ev, 3) == 1);
    assert(swim_events_receive(&receiver, &ev, 3) == 0);
    assert(receiver.clock == 1);
    assert(swim_events_create(&receiver, "restart", "", 0, 1, &ev) == 0 && ev.ltime == 2);
    assert(swim_events_create(&receiver, "", "", 0, 1, NULL) == -EINVAL);
}

int main(void) {
    test_config();
    test_suspicion_confirmations_shorten_the_timeout();
    test_awareness();
    test_events_are_delivered_once();
    puts("test_config passed");
    return 0;
}
