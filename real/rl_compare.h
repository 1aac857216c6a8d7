/* rl_compare: `hareal live --compare-sim` — the same scenario, seed and
 * duration simulated by hasim, and both runs' per-mirror shares and latency
 * percentiles side by side (a table for the caller to print, and DIR/compare.csv). */
#ifndef RL_COMPARE_H
#define RL_COMPARE_H

#include <stdint.h>
#include "hk_buf.h"
#include "hk_err.h"

/* self: hareal's path (hasim is beside it). The verdict in words is appended to verdict
 * (AGREEMENT or DISAGREEMENT, what differs and the bounds: shares, failure rates, p50 and p99
 * per mirror, each bounded by the runs' sample sizes), and, unless table is NULL, the side by
 * side table and the verdict to table; compare.csv gets each figure's bound and whether it
 * agrees. Prints nothing: 0, or -1 with err. */
int rl_compare_sim(const char *self, const char *scenario, const char *dir, int strategy,
                   int64_t dur_us, uint64_t seed, int variant, hk_buf *table, hk_buf *verdict,
                   hk_err *err);

#endif
