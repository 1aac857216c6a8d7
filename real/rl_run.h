/* rl_run: what hareal replay and live share — a wire master (rl_master) and the drive that
 * feeds it (rl_drive) run on the loop until every query has its rows; periods.csv,
 * latency.csv and queries.csv committed only when complete, or removed. */
#ifndef RL_RUN_H
#define RL_RUN_H

#include "hk_file.h"
#include "rl_drive.h"
#include "rl_master.h"

/* 0 (*mp: the master, the caller frees it); -2 with e when the trace is malformed; -1 with e
 * otherwise (a file, a port, memory). Prints nothing. */
int rl_run(rl_drive *d, rl_master **mp, const rl_master_cfg *mc, const char *dir,
           hk_out *periods, hk_out *queries, hk_err *e);

#endif
