/* hk_folder: a finished run's own files, written by one function for both engines (hasim's
 * run, hareal's replay and live): SHOW AGENT STATUS at the end (agent_status.txt), each
 * mirror's totals from the run's ledger (summary.csv), what the run found (convergence.csv,
 * findings.csv, findings.json, readmission.csv, timeline.csv), the answered queries' latency
 * quantiles when the engine keeps them (cdf.csv), and what ran (run.csv). Each file complete
 * or absent (hk_out). */
#ifndef HK_FOLDER_H
#define HK_FOLDER_H

#include <stddef.h>
#include "hk_answer.h"
#include "hk_hist.h"
#include "hk_ledger.h"
#include "hk_report.h"

typedef struct hk_folder {
    const hk_ans *ans;           /* findings, timeline and scenario */
    const hk_ledger *led;        /* the run's totals per route */
    const char *status;          /* agent_status.txt's text (status_len bytes) */
    size_t status_len;
    const hk_hist *all;          /* answered queries' latency, us: cdf.csv; NULL: no cdf.csv */
    const hk_rep_run *run;       /* run.csv */
} hk_folder;

/* f's files into dir (an output folder the run owns). 0, or -1 with err. */
int hk_folder_write(const hk_folder *f, const char *dir, hk_err *err);

#endif
