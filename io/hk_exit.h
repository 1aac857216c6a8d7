/* hk_exit: what every hakarma program ends with and says on the way out — one exit-code set
 * (commands and the engines under them return these) and the printers of errors and
 * warnings ("PROG: file:line:col: what was expected"; no position for a whole file). */
#ifndef HK_EXIT_H
#define HK_EXIT_H

#include "hk_err.h"

enum {
    HK_EXIT_OK = 0,
    HK_EXIT_RUN = 1,      /* a run-time failure (or a failed --check) */
    HK_EXIT_USAGE = 2,    /* the command line, or an output folder another run owns */
    HK_EXIT_INPUT = 3,    /* a config, scenario, trace or sample file: file:line:column */
    HK_EXIT_FINDING = 4,  /* a finding of a --fail-on kind was raised; the files are complete */
    HK_EXIT_SIGNAL = 128  /* + the signal that stopped the run */
};

void hk_print_err(const char *prog, const hk_err *e);
/* Each warning as "PROG: warning: ...", then how many more there were. */
void hk_print_warns(const char *prog, const hk_warns *w);

#endif
