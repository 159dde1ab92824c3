#include "handlers.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void swimd_handlers_init(swimd_handlers_t *h, const char *command, int max_running) {
    memset(h, 0, sizeof *h);
    snprintf(h->command, sizeof h->command, "%s", command ? command : "");
    h->max_running = max_running > 0 && max_running <= SWIMD_MAX_HANDLERS ? max_running : 4;
}

static const char *member_event_name(const swim_member_t *m, int joined) {
    if (joined) return "member-join";
    switch (m->state) {
    case SWIM_ALIVE: return "member-alive";
    case SWIM_SUSPECT: return "member-suspect";
    default: return "member-dead";
    }
}

/* Forks the handler with env set; payload (may be NULL) goes to its stdin. */
static int spawn(swimd_handlers_t *h, char *const env[], const char *payload, size_t len) {
    if (h->command[0] == '\0') return 0;
    if (h->n_running >= h->max_running) {
        h->dropped++;
        return -EAGAIN;
    }
    int in[2];
    if (pipe(in) != 0) return -errno;
    pid_t pid = fork();
    if (pid < 0) {
        int rc = -errno;
        close(in[0]);
        close(in[1]);
        return rc;
    }
    if (pid == 0) {
        dup2(in[0], STDIN_FILENO);
        close(in[0]);
        close(in[1]);
        for (size_t i = 0; env[i]; i += 2) setenv(env[i], env[i + 1], 1);
        execl("/bin/sh", "sh", "-c", h->command, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    if (payload && len > 0 && write(in[1], payload, len) < 0) {
        /* A handler that does not read its stdin is allowed. */
    }
    close(in[1]);
    h->running[h->n_running++] = pid;
    h->started++;
    return 0;
}

int swimd_handlers_member(swimd_handlers_t *h, const swim_member_t *m, swim_state_t old_state, int joined) {
    (void)old_state;
    char inc[16];
    snprintf(inc, sizeof inc, "%u", m->incarnation);
    char *const env[] = {"SWIM_EVENT",       (char *)member_event_name(m, joined),
                         "SWIM_MEMBER",      (char *)m->name,
                         "SWIM_MEMBER_ADDR", (char *)m->addr,
                         "SWIM_INCARNATION", inc,
                         NULL};
    return spawn(h, env, NULL, 0);
}

int swimd_handlers_user(swimd_handlers_t *h, const char *name, const char *payload, size_t len, uint32_t ltime) {
    char lt[16];
    snprintf(lt, sizeof lt, "%u", ltime);
    char *const env[] = {"SWIM_EVENT", "user", "SWIM_USER_EVENT", (char *)name, "SWIM_LTIME", lt, NULL};
    return spawn(h, env, payload, len);
}

void swimd_handlers_reap(swimd_handlers_t *h, swim_log_fn log) {
    for (int i = 0; i < h->n_running;) {
        int status = 0;
        pid_t pid = waitpid(h->running[i], &status, WNOHANG);
        if (pid == 0) {
            i++;
            continue;
        }
        if (pid > 0 && WIFSIGNALED(status)) {
            h->failed++;
            if (log) log("WARN", "event handler (pid %ld) killed by signal %d", (long)pid, WTERMSIG(status));
        } else if (pid > 0 && WEXITSTATUS(status) != 0) {
            h->failed++;
            if (log) log("WARN", "event handler (pid %ld) exited with %d", (long)pid, WEXITSTATUS(status));
        }
        h->running[i] = h->running[--h->n_running];
    }
}
