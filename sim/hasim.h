/* hasim: the simulator's commands (one file each), sharing exit codes and
 * the options of a plain run.
 *   hasim SCENARIO ...        hasim_run.c: one run, or every strategy/variant side by side
 *   hasim init ...            hasim_init.c: a scenario from production files
 *   hasim sweep SCENARIO ...  hasim_sweep.c: the advisor
 *   hasim merge DIR...        hasim_sweep.c: shards of a sweep into one */
#ifndef HASIM_H
#define HASIM_H

#include <stdint.h>
#include "hk_plot.h"

enum { EXIT_RUN = 1, EXIT_USAGE = 2, EXIT_INPUT = 3 };

typedef struct hasim_args {
    const char *scenario, *out;
    char outbuf[1024];
    long long seed;              /* -1 = scenario's */
    int strat_all, strategy;     /* strategy -1 = scenario's */
    int var_all, variant;        /* variant -1 = scenario's */
    int64_t duration_us;
    int queries, plot, quiet, no_exec, check;
    hk_plot_sel sel;             /* what the plots draw */
} hasim_args;

int hasim_run(int argc, char **argv);
int hasim_init(int argc, char **argv);
int hasim_sweep(int argc, char **argv);
int hasim_merge(int argc, char **argv);

#endif
