#include "awareness.h"

void swim_awareness_init(swim_awareness_t *a, int max) {
    a->score = 0;
    a->max = max > 0 ? max : 8;
}

int swim_awareness_apply(swim_awareness_t *a, int delta) {
    int score = a->score + delta;
    if (score < 0) score = 0;
    if (score > a->max - 1) score = a->max - 1;
    a->score = score;
    return score;
}

uint64_t swim_awareness_scale(const swim_awareness_t *a, uint64_t timeout_ms) {
    return timeout_ms * (uint64_t)(a->score + 1);
}
