/* Local health awareness (Lifeguard, section 4.1): a node that misses its own deadlines,
 * because it is overloaded or its network is, should not be quick to suspect others. The
 * score rises when probes fail without the nacks that would prove the network works, and
 * when we have to refute a suspicion of ourselves; it falls with every successful probe.
 * Probe timeouts are scaled by score + 1. */
#ifndef SWIM_AWARENESS_H
#define SWIM_AWARENESS_H

#include <stdint.h>

typedef struct {
    int score;
    int max;
} swim_awareness_t;

void swim_awareness_init(swim_awareness_t *a, int max);
/* Returns the new score, kept within [0, max). */
int swim_awareness_apply(swim_awareness_t *a, int delta);
uint64_t swim_awareness_scale(const swim_awareness_t *a, uint64_t timeout_ms);

#endif
