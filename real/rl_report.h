/* rl_report: what a wire run (hareal replay, live) ends with — its output folder finished
 * (0, a --fail-on finding, or stopped by a signal with every query's rows) or emptied, and
 * the run in words: the per-mirror table, totals, replay lag, convergence, re-admission and
 * the findings (first, for report.txt, or last, for stdout). */
#ifndef RL_REPORT_H
#define RL_REPORT_H

#include <stdio.h>
#include "hk_answer.h"
#include "hk_rundir.h"
#include "rl_drive.h"
#include "rl_master.h"

/* The run ended with exit code rc: its folder finished or emptied; rc, or 1 if the finish
 * failed (said). */
int rl_outdir_close(hk_rundir *rd, int rc);
/* ans may be NULL. */
void rl_report(FILE *out, const rl_master *m, const rl_drive *d, const char *title,
               const hk_ans *ans, int findings_first);

#endif
