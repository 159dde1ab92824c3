#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers.h"

void swimd_config_defaults(swimd_config_t *c) {
    memset(c, 0, sizeof *c);
    snprintf(c->bind, sizeof c->bind, "%s", "0.0.0.0:7946");
    snprintf(c->control_socket, sizeof c->control_socket, "%s", "/run/swimd.sock");
    snprintf(c->log_level, sizeof c->log_level, "%s", "info");
    c->probe_interval_ms = 1000;
    c->probe_timeout_ms = 500;
    c->indirect_checks = 3;
    c->suspicion_timeout_ms = 5000;
    c->retransmit_mult = 4;
    c->handler_max_running = 4;
    c->pushpull_interval_ms = 30000;
}

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1])) *--end = '\0';
    return s;
}

static int set_string(char *dst, size_t cap, const char *value) {
    if (strlen(value) >= cap) return -ENAMETOOLONG;
    snprintf(dst, cap, "%s", value);
    return 0;
}

static int set_u64(uint64_t *dst, const char *value) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(value, &end, 10);
    if (errno || end == value || *end != '\0') return -EINVAL;
    *dst = v;
    return 0;
}

static int set_int(int *dst, const char *value) {
    uint64_t v;
    int rc = set_u64(&v, value);
    if (rc == 0 && v > 1000) rc = -ERANGE;
    if (rc == 0) *dst = (int)v;
    return rc;
}

static int set_seeds(swimd_config_t *c, char *value) {
    c->n_seeds = 0;
    char *save = NULL;
    for (char *s = strtok_r(value, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        s = trim(s);
        if (*s == '\0') continue;
        if (c->n_seeds == SWIM_MAX_SEEDS) return -E2BIG;
        int rc = set_string(c->seeds[c->n_seeds], sizeof c->seeds[0], s);
        if (rc != 0) return rc;
        c->n_seeds++;
    }
    return 0;
}

static int set_key(swimd_config_t *c, const char *key, char *value) {
    if (strcmp(key, "name") == 0) return set_string(c->name, sizeof c->name, value);
    if (strcmp(key, "bind") == 0) return set_string(c->bind, sizeof c->bind, value);
    if (strcmp(key, "advertise") == 0) return set_string(c->advertise, sizeof c->advertise, value);
    if (strcmp(key, "seeds") == 0) return set_seeds(c, value);
    if (strcmp(key, "control_socket") == 0) return set_string(c->control_socket, sizeof c->control_socket, value);
    if (strcmp(key, "log_level") == 0) return set_string(c->log_level, sizeof c->log_level, value);
    if (strcmp(key, "probe_interval_ms") == 0) return set_u64(&c->probe_interval_ms, value);
    if (strcmp(key, "probe_timeout_ms") == 0) return set_u64(&c->probe_timeout_ms, value);
    if (strcmp(key, "indirect_checks") == 0) return set_int(&c->indirect_checks, value);
    if (strcmp(key, "suspicion_timeout_ms") == 0) return set_u64(&c->suspicion_timeout_ms, value);
    if (strcmp(key, "suspicion_min_ms") == 0) return set_u64(&c->suspicion_min_ms, value);
    if (strcmp(key, "retransmit_mult") == 0) return set_int(&c->retransmit_mult, value);
    if (strcmp(key, "status_http") == 0) return set_string(c->status_http, sizeof c->status_http, value);
    if (strcmp(key, "keyring_file") == 0) return set_string(c->keyring_file, sizeof c->keyring_file, value);
    if (strcmp(key, "event_handler") == 0) return set_string(c->event_handler, sizeof c->event_handler, value);
    if (strcmp(key, "handler_max_running") == 0) return set_int(&c->handler_max_running, value);
    if (strcmp(key, "pushpull_interval_ms") == 0) return set_u64(&c->pushpull_interval_ms, value);
    return -ENOENT;
}

/* One line without its comment: blank, or "key = value". */
static int parse_line(swimd_config_t *c, char *line, int line_no, char *err, size_t errlen) {
    char key[64], value[512];
    line[strcspn(line, "#")] = '\0';
    if (*trim(line) == '\0') return 0;
    value[0] = '\0';
    if (sscanf(line, " %63[A-Za-z0-9_] = %511[^\n]", key, value) < 1 || !strchr(line, '=')) {
        snprintf(err, errlen, "line %d: expected key = value", line_no);
        return -EINVAL;
    }
    int rc = set_key(c, key, trim(value));
    if (rc == -ENOENT) snprintf(err, errlen, "line %d: unknown setting \"%s\"", line_no, key);
    else if (rc != 0) snprintf(err, errlen, "line %d: bad value for %s: %s", line_no, key, strerror(-rc));
    return rc == 0 ? 0 : -EINVAL;
}

int swimd_config_parse(swimd_config_t *c, const char *text, char *err, size_t errlen) {
    int line_no = 0;
    for (const char *p = text; *p;) {
        char line[512];
        size_t n = strcspn(p, "\n");
        line_no++;
        if (n >= sizeof line) {
            snprintf(err, errlen, "line %d: too long", line_no);
            return -EINVAL;
        }
        memcpy(line, p, n);
        line[n] = '\0';
        p += n + (p[n] == '\n');
        int rc = parse_line(c, line, line_no, err, errlen);
        if (rc != 0) return rc;
    }
    return 0;
}

int swimd_config_load(swimd_config_t *c, const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -errno;
    }
    char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    int too_big = !feof(f);
    fclose(f);
    if (too_big) {
        snprintf(err, errlen, "%s: larger than %zu bytes", path, sizeof text - 1);
        return -EFBIG;
    }
    text[n] = '\0';
    char inner[200];
    int rc = swimd_config_parse(c, text, inner, sizeof inner);
    if (rc != 0) snprintf(err, errlen, "%s: %s", path, inner);
    return rc;
}

/* Formats the complaint into err and returns -EINVAL. */
static int reject(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

int swimd_config_validate(const swimd_config_t *c, char *err, size_t errlen) {
    unsigned long long interval = c->probe_interval_ms, timeout = c->probe_timeout_ms;
    unsigned long long suspicion = c->suspicion_timeout_ms;
    if (c->name[0] == '\0') return reject(err, errlen, "name is required");
    if (strchr(c->name, ' ')) return reject(err, errlen, "name \"%s\" contains a space", c->name);
    if (interval < 100) return reject(err, errlen, "probe_interval_ms is %llu; 100 is the least", interval);
    if (timeout == 0 || timeout >= interval)
        return reject(err, errlen, "probe_timeout_ms is %llu; it must be positive and below probe_interval_ms (%llu)",
                      timeout, interval);
    if (suspicion < 2 * interval)
        return reject(err, errlen, "suspicion_timeout_ms is %llu; two probe intervals (%llu) are the least", suspicion,
                      2 * interval);
    if (c->suspicion_min_ms > suspicion)
        return reject(err, errlen, "suspicion_min_ms exceeds suspicion_timeout_ms (%llu)", suspicion);
    if (c->indirect_checks > 8) return reject(err, errlen, "indirect_checks is %d; 8 is the most", c->indirect_checks);
    if (c->retransmit_mult < 1) return reject(err, errlen, "retransmit_mult must be at least 1");
    if (c->pushpull_interval_ms != 0 && c->pushpull_interval_ms < interval)
        return reject(err, errlen, "pushpull_interval_ms must be 0 (off) or at least probe_interval_ms (%llu)", interval);
    if (c->handler_max_running < 1 || c->handler_max_running > SWIMD_MAX_HANDLERS)
        return reject(err, errlen, "handler_max_running is %d; between 1 and %d", c->handler_max_running,
                      SWIMD_MAX_HANDLERS);
    return 0;
}

void swimd_config_agent_options(const swimd_config_t *c, swim_agent_options_t *o) {
    swim_agent_options_defaults(o);
    o->name = c->name;
    o->bind_addr = c->bind;
    o->advertise_addr = c->advertise[0] ? c->advertise : NULL;
    o->probe_interval_ms = c->probe_interval_ms;
    o->probe_timeout_ms = c->probe_timeout_ms;
    o->indirect_checks = c->indirect_checks;
    o->suspicion_timeout_ms = c->suspicion_timeout_ms;
    o->suspicion_min_ms = c->suspicion_min_ms;
    o->retransmit_mult = c->retransmit_mult;
    o->pushpull_interval_ms = c->pushpull_interval_ms;
}
