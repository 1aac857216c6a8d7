/* hk_plot: turn an output folder's CSVs (periods.csv, latency.csv,
 * faults.csv, strategies.csv, compare.csv) into gnuplot data blocks, run the
 * editable scripts in plots/ with gnuplot as a child process (never linked),
 * producing DIR/plots/NAME.png and .svg, and write DIR/index.html. */
#ifndef HK_PLOT_H
#define HK_PLOT_H

#include <signal.h>

/* What to draw (empty / -1: chosen automatically: the lines and mirrors with a fault, a finding
 * or a deviant latency, master 0). */
typedef struct hk_plot_sel {
    char lines[256];             /* "table/agent" items, comma-separated */
    char mirrors[256];           /* "host:port" items, comma-separated */
    int master;
    volatile sig_atomic_t *stop; /* the run's stop flag (NULL: none): set, gnuplot is ended */
} hk_plot_sel;

/* Returns the number of charts drawn, or -1 with msg set (gnuplot missing or
 * failing, unreadable CSV); the CSVs are never touched. sel may be NULL. */
int hk_plot_run(const char *dir, int multi, const hk_plot_sel *sel, char *msg, int n);
/* Where the .gp scripts are: $HAKARMA_PLOTS, else the source tree's plots/. */
const char *hk_plot_scripts(void);

#endif
