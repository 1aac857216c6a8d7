/* sim_out: the simulator's streamed CSV rows — periods.csv (one row per
 * master x line x mirror x karma period), latency.csv (answered queries'
 * latency per period) and queries.csv (one row per query x agent line, with
 * hareal's columns). */
#ifndef SIM_OUT_H
#define SIM_OUT_H

#include "sim.h"

void sim_out_headers(const sim_opts *o);
void sim_out_period(sim_world *w, int master, const sim_linst *li, int mirror, double t_s,
                    double prob);
void sim_out_latency(sim_world *w, double t_s);
void sim_out_query(sim_world *w, const sim_query *q, const sim_lstate *ls);

#endif
