/* hk_answer: what a run found, said in words with the figures as evidence —
 * the findings block (stdout, report.txt, index.html), findings.csv, and the
 * convergence and re-admission lines — shared by hasim and hareal, so both
 * programs answer alike. */
#ifndef HK_ANSWER_H
#define HK_ANSWER_H

#include <stdio.h>
#include "hk_err.h"
#include "hk_find.h"

typedef struct hk_ans {          /* one run's analysis, for printing */
    const hk_findings *fd;
    const hk_tl *tl;
    const hk_scn *scn;
    int nmasters;
} hk_ans;

/* The caveats ("WARNING: ..."), then "FINDINGS" and one line per finding (or a line saying
 * there is none). */
void hk_ans_findings(FILE *f, const hk_ans *a);
/* findings.csv: kind,master,table,agent,mirror,t_s,detail */
int hk_ans_findings_csv(const hk_ans *a, const char *dir, hk_err *err);
/* findings.json (schema HK_FINDINGS_SCHEMA, see README "Findings"): {"schema", "n",
 * "checked": {kind: count for every kind checked}, "caveats": [words], "findings": [{"kind", "severe", "master"
 * (null: all masters), "table", "agent", "mirror" (null: none), "t_s", "detail"}]}. */
#define HK_FINDINGS_SCHEMA "hakarma-findings/1"
int hk_ans_findings_json(const hk_ans *a, const char *dir, hk_err *err);
/* 1 if a finding's kind is in kinds (a comma list, as --fail-on gives it). */
int hk_ans_fail_on(const hk_ans *a, const char *kinds);
/* readmission.csv: fault,master,table,agent,mirror,pre_share,first_query_s,back_s,peak_share,
 * peak_s (-1: never / n/a). */
int hk_ans_readmission_csv(const hk_ans *a, const char *dir, hk_err *err);
/* timeline.csv: one row per series and bin: master,table,agent,mirror,t_s,attempts,failed,
 * share,latency_mean_ms,probability,weight_share (t_s: the bin's start since the run's). */
int hk_ans_timeline_csv(const hk_ans *a, const char *dir, hk_err *err);
/* convergence.csv: master,table,agent,converged (yes, never, static, single),t_converged_s,
 * amplitude. */
int hk_ans_convergence_csv(const hk_ans *a, const char *dir, hk_err *err);
/* Convergence lines (at most 8 lines, then a summary). */
void hk_ans_conv(FILE *f, const hk_ans *a);
/* One line per fault: pre-fault share, first query after it ended, share back, peak. */
void hk_ans_readmit(FILE *f, const hk_ans *a);
/* A short re-admission cell for comparison tables: "box2 0.4s/1.2s", "box2 never". */
void hk_ans_readmit_cell(const hk_ans *a, int fault, char *buf, int n);
/* "static", "never", "120 s": the latest convergence over the run's HA lines. */
void hk_ans_conv_cell(const hk_ans *a, char *buf, int n);
/* "2 starved, 1 locked" or "none". */
void hk_ans_kinds_cell(const hk_ans *a, char *buf, int n);

#endif
