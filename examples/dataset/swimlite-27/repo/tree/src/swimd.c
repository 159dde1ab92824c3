/* swimd: a tiny UDP daemon around libswim, for experiments. */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "swim.h"

static void log_stderr(const char *level, const char *fmt, ...) {
    va_list ap;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    fprintf(stderr, "%lld.%03ld %-5s ", (long long)ts.tv_sec, ts.tv_nsec / 1000000, level);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: swimd <name> <port> [seed-addr]\n");
        return 2;
    }
    swim_config_t cfg = {.self_name = argv[1], .self_addr = argv[2], .suspicion_timeout_ms = 5000,
                         .probe_interval_ms = 1000, .retransmit_mult = 4, .log = log_stderr};
    swim_cluster_t *c = swim_new(&cfg);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2]))};
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        perror("bind");
        return 1;
    }
    char buf[256];
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) {
            swim_msg_t msg;
            if (swim_decode(buf, (size_t)n, &msg) == 0) swim_apply(c, &msg, now_ms());
        }
        swim_tick(c, now_ms());
        usleep(10000);
    }
}
