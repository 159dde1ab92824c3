/*
 * Suspicion confirmations (Lifeguard, section 4.3). Each independent member that suspects
 * the same member at the same incarnation confirms the suspicion, and every confirmation
 * shortens the time left before it is declared dead, from max_ms towards min_ms:
 *   timeout(C) = max(min_ms, max_ms - (max_ms - min_ms) * log(C + 1) / log(K + 1))
 * With min_ms == 0 (the default) confirmations are counted but the timeout stays the fixed
 * suspicion timeout of the configuration.
 */
#ifndef SWIM_SUSPICION_H
#define SWIM_SUSPICION_H

#include <stddef.h>
#include <stdint.h>

#include "swim.h"

#define SWIM_MAX_CONFIRMATIONS 8

typedef struct {
    char node[SWIM_NAME_LEN];
    uint32_t incarnation;
    uint64_t started_ms;
    char confirmers[SWIM_MAX_CONFIRMATIONS][SWIM_NAME_LEN];
    int n_confirmers;
} swim_suspicion_t;

typedef struct {
    swim_suspicion_t entries[SWIM_MAX_MEMBERS];
    size_t n;
    uint64_t min_ms;
    uint64_t max_ms;
    int expected; /* K: the confirmations after which min_ms is reached */
} swim_suspicions_t;

void swim_suspicions_init(swim_suspicions_t *s, uint64_t min_ms, uint64_t max_ms, int expected);

/* A suspicion of node at incarnation began, raised by `from`. */
void swim_suspicion_start(swim_suspicions_t *s, const char *node, uint32_t incarnation, const char *from,
                          uint64_t now_ms);

/* Another member suspects m at the incarnation we suspect it at. Returns 1 when this moved
 * m's deadline, 0 for a repeated or irrelevant confirmation. */
int swim_suspicion_confirm(swim_suspicions_t *s, swim_member_t *m, const char *from);

/* The member is alive again, dead, or gone. */
void swim_suspicion_clear(swim_suspicions_t *s, const char *node);

uint64_t swim_suspicion_timeout(const swim_suspicions_t *s, int confirmations);
const swim_suspicion_t *swim_suspicion_find(const swim_suspicions_t *s, const char *node);

#endif
