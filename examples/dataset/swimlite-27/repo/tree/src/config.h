/* swimd's configuration file: "key = value" lines, '#' comments. */
#ifndef SWIM_CONFIG_H
#define SWIM_CONFIG_H

#include <stddef.h>

#include "swim_agent.h"

#define SWIM_MAX_SEEDS 16

typedef struct {
    char name[SWIM_NAME_LEN];
    char bind[48];
    char advertise[48];
    char seeds[SWIM_MAX_SEEDS][48];
    size_t n_seeds;
    char control_socket[108];
    char log_level[8];
    char keyring_file[256];
    char status_http[48]; /* "ip:port" of the HTTP status endpoint; empty disables it */
    char event_handler[512];
    int handler_max_running;
    uint64_t pushpull_interval_ms;
    uint64_t probe_interval_ms;
    uint64_t probe_timeout_ms;
    int indirect_checks;
    uint64_t suspicion_timeout_ms;
    uint64_t suspicion_min_ms;
    int retransmit_mult;
} swimd_config_t;

void swimd_config_defaults(swimd_config_t *c);

/* Parses text over the defaults. On error describes the line in err. */
int swimd_config_parse(swimd_config_t *c, const char *text, char *err, size_t errlen);
int swimd_config_load(swimd_config_t *c, const char *path, char *err, size_t errlen);

/* Rules between settings: the probe timeout inside the probe interval, a suspicion long
 * enough for a few probe rounds to refute it, a name and an address. */
int swimd_config_validate(const swimd_config_t *c, char *err, size_t errlen);

/* Fills agent options from the configuration; they point into c. */
void swimd_config_agent_options(const swimd_config_t *c, swim_agent_options_t *o);

#endif
