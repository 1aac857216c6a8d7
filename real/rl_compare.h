/* rl_compare: `hareal live --compare-sim` — the same scenario, seed and
 * duration simulated by hasim, and both runs' per-mirror shares and latency
 * percentiles side by side (stdout unless quiet, and DIR/compare.csv). */
#ifndef RL_COMPARE_H
#define RL_COMPARE_H

#include <stdint.h>
#include "hk_buf.h"

/* self: hareal's path (hasim is beside it). The verdict in words is appended to verdict
 * (AGREEMENT or DISAGREEMENT, what differs and the bounds: shares, failure rates, p50 and p99
 * per mirror, each bounded by the runs' sample sizes); compare.csv gets each figure's bound
 * and whether it agrees. Returns 0, or -1 after saying why on stderr. */
int rl_compare_sim(const char *self, const char *scenario, const char *dir, int strategy,
                   int quiet, int64_t dur_us, uint64_t seed, int variant, hk_buf *verdict);

#endif
