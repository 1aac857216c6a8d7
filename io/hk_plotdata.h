/* hk_plotdata: what the plots of one run folder draw, and the data files
 * gnuplot reads. It picks the agent lines worth drawing (by default those
 * with a fault, a finding or a deviant mirror, at most HK_PLOT_LINES; or the
 * ones named), reads their per-second timeline (timeline.csv), their karma
 * periods (periods.csv), the run's answered latency (latency.csv), faults
 * and findings, and writes DIR/plots/NAME.dat files and the per-panel marks (fault
 * windows, findings) as gnuplot snippets. Every value is placed over the
 * interval it describes. */
#ifndef HK_PLOTDATA_H
#define HK_PLOTDATA_H

#include "hk_plot.h"

#define HK_PLOT_LINES 4          /* panels per chart */
#define HK_PLOT_MIRRORS 12       /* mirrors drawn per panel (one colour each); the rest: "others" */

typedef struct hk_pseries {
    char mirror[280];
    int n, cap;
    double *t, *prob, *share, *lat, *q;  /* per bin: start (s), probability, share, mean ms,
                                            attempts */
} hk_pseries;

typedef struct hk_pline {
    char table[200];
    int agent;
    int nm;                      /* mirrors drawn */
    int total;                   /* mirrors the line has */
    int others;                  /* 1: a last series sums the mirrors not drawn */
    hk_pseries m[HK_PLOT_MIRRORS + 1];
    char why[96];                /* why it was chosen */
} hk_pline;

#define HK_PLOT_MARKS 64

typedef struct hk_pmark {        /* a fault window, or a finding's moment */
    char table[200], mirror[280], kind[24];
    int agent;
    double t0, t1;
} hk_pmark;

typedef struct hk_pdata {
    char program[16], variant[64], strategy[128];
    int masters, master;
    double duration_s, karma_s;
    int nl, lines_total;
    hk_pline l[HK_PLOT_LINES];
    int nfaults, nfinds;
    hk_pmark faults[HK_PLOT_MARKS], finds[HK_PLOT_MARKS];
} hk_pdata;

/* Load what to draw from dir's CSVs. -1 with msg set when there is nothing to draw. */
int hk_pdata_load(const char *dir, const hk_plot_sel *sel, hk_pdata *p, char *msg, int n);
/* Write the data files in DIR/plots and each panel's marks_L.gp. */
int hk_pdata_write(const char *dir, const hk_pdata *p, char *msg, int n);
void hk_pdata_free(hk_pdata *p);

#endif
