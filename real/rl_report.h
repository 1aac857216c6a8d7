/* rl_report: what a wire run (hareal replay, live) ends with, in words: the per-mirror table,
 * totals, replay lag, convergence, re-admission and the findings (first, for report.txt, or
 * last, for the front end's output), into the stream the caller gives. */
#ifndef RL_REPORT_H
#define RL_REPORT_H

#include <stdio.h>
#include "hk_answer.h"
#include "hk_rundir.h"
#include "rl_drive.h"
#include "rl_master.h"

/* ans may be NULL. */
void rl_report(FILE *out, const rl_master *m, const rl_drive *d, const char *title,
               const hk_ans *ans, int findings_first);

#endif
