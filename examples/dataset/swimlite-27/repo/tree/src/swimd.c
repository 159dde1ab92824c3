/* swimd: the SWIM membership daemon around libswim's agent.
 *
 *   swimd -c /etc/swimd.conf
 *   swimd <name> <bind ip:port> [seed ip:port]...      (for experiments)
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "config.h"
#include "control.h"
#include "handlers.h"
#include "keyring.h"
#include "status_http.h"
#include "swim_agent.h"

static volatile sig_atomic_t stop_requested;
static int min_level = 1; /* 0 debug, 1 info, 2 warn, 3 error */

static int level_rank(const char *level) {
    if (strcasecmp(level, "DEBUG") == 0) return 0;
    if (strcasecmp(level, "INFO") == 0) return 1;
    if (strcasecmp(level, "WARN") == 0) return 2;
    return 3;
}

static void log_stderr(const char *level, const char *fmt, ...) {
    va_list ap;
    struct timespec ts;
    if (level_rank(level) < min_level) return;
    clock_gettime(CLOCK_REALTIME, &ts);
    fprintf(stderr, "%lld.%03ld %-5s ", (long long)ts.tv_sec, ts.tv_nsec / 1000000, level);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void on_member(void *arg, const swim_member_t *m, swim_state_t old_state, int joined) {
    swimd_handlers_member(arg, m, old_state, joined);
}

static void on_user_event(void *arg, const char *name, const char *payload, size_t len, uint32_t ltime) {
    log_stderr("INFO", "user event %s (%zu bytes, time %u)", name, len, ltime);
    swimd_handlers_user(arg, name, payload, len, ltime);
}

static void on_signal(int sig) {
    (void)sig;
    stop_requested = 1;
}

static int configure(int argc, char **argv, swimd_config_t *cfg) {
    char err[256];
    swimd_config_defaults(cfg);
    if (argc == 3 && strcmp(argv[1], "-c") == 0) {
        if (swimd_config_load(cfg, argv[2], err, sizeof err) != 0) {
            fprintf(stderr, "swimd: %s\n", err);
            return -1;
        }
    } else if (argc >= 3 && argv[1][0] != '-') {
        snprintf(cfg->name, sizeof cfg->name, "%s", argv[1]);
        snprintf(cfg->bind, sizeof cfg->bind, "%s", argv[2]);
        for (int i = 3; i < argc && cfg->n_seeds < SWIM_MAX_SEEDS; i++)
            snprintf(cfg->seeds[cfg->n_seeds++], sizeof cfg->seeds[0], "%s", argv[i]);
        cfg->control_socket[0] = '\0';
    } else {
        fprintf(stderr, "usage: swimd -c <config file>\n       swimd <name> <ip:port> [seed ip:port]...\n");
        return -1;
    }
    if (swimd_config_validate(cfg, err, sizeof err) != 0) {
        fprintf(stderr, "swimd: %s\n", err);
        return -1;
    }
    min_level = level_rank(cfg->log_level);
    return 0;
}

static void log_start(const swimd_config_t *cfg, const swim_agent_t *a) {
    char seeds[512] = "";
    size_t off = 0;
    for (size_t i = 0; i < cfg->n_seeds && off < sizeof seeds; i++)
        off += (size_t)snprintf(seeds + off, sizeof seeds - off, "%s%s", i ? ", " : "", cfg->seeds[i]);
    log_stderr("INFO", "swimd starting as %s on %s, seed %s", cfg->name, swim_agent_address(a),
               cfg->n_seeds ? seeds : "none");
}

int main(int argc, char **argv) {
    swimd_config_t cfg;
    if (configure(argc, argv, &cfg) != 0) return 2;
    swim_agent_options_t opts;
    swimd_config_agent_options(&cfg, &opts);
    opts.log = log_stderr;
    static swim_keyring_t keyring;
    int rc;
    if (cfg.keyring_file[0]) {
        if ((rc = swim_keyring_load(&keyring, cfg.keyring_file)) != 0) {
            fprintf(stderr, "swimd: keyring %s: %s\n", cfg.keyring_file, strerror(-rc));
            return 2;
        }
        opts.keyring = &keyring;
    }
    swim_agent_t *agent = NULL;
    rc = swim_agent_new(&opts, &agent);
    if (rc != 0) {
        fprintf(stderr, "swimd: cannot bind %s: %s\n", cfg.bind, strerror(-rc));
        return 1;
    }
    swim_control_t control = {.fd = -1};
    if (cfg.control_socket[0] && (rc = swim_control_open(&control, cfg.control_socket)) != 0)
        log_stderr("WARN", "control socket %s: %s", cfg.control_socket, strerror(-rc));
    swim_status_t status = {.fd = -1};
    if (cfg.status_http[0] && (rc = swim_status_open(&status, cfg.status_http)) != 0)
        log_stderr("WARN", "status endpoint %s: %s", cfg.status_http, strerror(-rc));
    static swimd_handlers_t handlers;
    swimd_handlers_init(&handlers, cfg.event_handler, cfg.handler_max_running);
    swim_agent_on_member_event(agent, on_member, &handlers);
    swim_agent_on_user_event(agent, on_user_event, &handlers);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGPIPE, SIG_IGN);
    log_start(&cfg, agent);

    const char *seeds[SWIM_MAX_SEEDS];
    for (size_t i = 0; i < cfg.n_seeds; i++) seeds[i] = cfg.seeds[i];
    if (cfg.n_seeds && (rc = swim_agent_join(agent, seeds, cfg.n_seeds)) != 0)
        log_stderr("WARN", "could not contact any seed: %s", strerror(-rc));

    while (!stop_requested && !control.leave_requested) {
        rc = swim_agent_step(agent, 50);
        if (rc != 0) log_stderr("ERROR", "receive: %s", strerror(-rc));
        if (control.fd >= 0) swim_control_poll(&control, agent);
        if (status.fd >= 0) swim_status_poll(&status, agent);
        swimd_handlers_reap(&handlers, log_stderr);
    }
    swim_agent_leave(agent);
    for (int i = 0; i < 10; i++) swim_agent_step(agent, 20); /* let the leave go out */
    swim_control_close(&control);
    swim_status_close(&status);
    swim_agent_free(agent);
    return 0;
}
