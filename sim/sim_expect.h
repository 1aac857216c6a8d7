/* sim_expect: whether one run bears out a scenario's claim (hk_expect), with
 * the figure that decided it as evidence. */
#ifndef SIM_EXPECT_H
#define SIM_EXPECT_H

#include "hk_expect.h"
#include "sim.h"
#include "sim_report.h"

/* 1 holds, 0 does not; evidence says what the run showed. */
int sim_expect_eval(const hk_claim *c, const sim_world *w, const sim_result *r, char *evidence,
                    int n);

#endif
