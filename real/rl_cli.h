/* rl_cli: the three hareal commands, and what they share (options, output
 * folder set-up, the end-of-run report with its findings). */
#ifndef RL_CLI_H
#define RL_CLI_H

#include <stdint.h>
#include <stdio.h>
#include "hk_answer.h"
#include "hk_file.h"
#include "hk_plot.h"
#include "hk_rundir.h"
#include "rl_drive.h"

enum { RL_EXIT_RUN = 1, RL_EXIT_USAGE = 2, RL_EXIT_INPUT = 3, RL_EXIT_FINDING = 4,
       RL_EXIT_INTERRUPTED = 130 };

/* The options hareal replay and hareal live share. */
typedef struct rl_common {
    const char *trace, *out;
    const char *fail_on;         /* --fail-on's finding kinds, or NULL */
    int format, force, plot, quiet, no_exec, variant, strategy, help;
    long long seed;
    int ntmap;
    const char *tmap[RL_TMAP_MAX][2];
    char tmap_buf[RL_TMAP_MAX][256];
    hk_plot_sel sel;
} rl_common;

void rl_common_init(rl_common *c, int variant, long long seed);
/* a = argv[i], v = argv[i + 1] or NULL. Returns how many arguments it took (1 or 2), 0 if a is
 * not a shared option, -1 after printing what is wrong. --help/--version set c->help. */
int rl_common_opt(rl_common *c, const char *who, const char *a, const char *v);
/* rc, or RL_EXIT_FINDING (said on stderr) when rc is 0 and a finding of c->fail_on's kinds was
 * raised. */
int rl_fail_on(const rl_common *c, const char *who, const hk_ans *a, int rc);
/* The shared options' lines for --help. */
void rl_common_usage(FILE *f);

int rl_cmd_mirror(int argc, char **argv);
int rl_cmd_replay(int argc, char **argv);
int rl_cmd_live(int argc, char **argv, const char *self);

/* Output folder, owned for the run (hk_rundir): refused while another run holds it, or when it
 * holds a finished run (unless force). */
int rl_outdir(hk_rundir *rd, const char *dir, const char *who, int force, hk_err *err);
/* The run ended with exit code rc: its folder finished (0, a --fail-on finding, or the
 * documented interrupted form, every query with its rows), or emptied of what it wrote. */
int rl_outdir_close(hk_rundir *rd, int rc);
/* The run in words: the per-mirror table, totals, replay lag, convergence, re-admission and
 * the findings (first, for report.txt, or last, for stdout); ans may be NULL. */
void rl_report(FILE *out, const rl_master *m, const rl_drive *d, const char *title,
               const hk_ans *ans, int findings_first);
void rl_print_err(const char *who, const hk_err *e);
void rl_print_warns(const char *who, const hk_warns *w);

#endif
