/* hk_plot: turn an output folder's CSVs (periods.csv, latency.csv,
 * faults.csv, strategies.csv, compare.csv) into gnuplot data blocks, run the
 * editable scripts in plots/ with gnuplot as a child process (never linked),
 * producing DIR/plots/NAME.png and .svg, and write DIR/index.html. */
#ifndef HK_PLOT_H
#define HK_PLOT_H

/* Returns the number of charts drawn, or -1 with msg set (gnuplot missing or
 * failing, unreadable CSV); the CSVs are never touched. */
int hk_plot_run(const char *dir, int multi, char *msg, int n);
/* Where the .gp scripts are: $HAKARMA_PLOTS, else the source tree's plots/. */
const char *hk_plot_scripts(void);

#endif
