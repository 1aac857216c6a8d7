/* sim_out: the simulator's streamed CSV rows — periods.csv (one row per
 * master x line x mirror x karma period), latency.csv (overall query latency
 * per period) and queries.csv (one row per query x agent line). */
#ifndef SIM_OUT_H
#define SIM_OUT_H

#include "sim.h"

void sim_out_headers(const sim_opts *o);
void sim_out_period(sim_world *w, int master, const sim_linst *li, int mirror);
void sim_out_latency(sim_world *w);
void sim_out_query(sim_world *w, const sim_query *q, const sim_lstate *ls);
const char *sim_ev_name(int ev);

#endif
