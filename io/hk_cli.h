/* hk_cli: what every hakarma program's command line shares — checked
 * numeric options (a value out of range or overflowing is refused, never
 * wrapped), --version, and the progress line (stderr, only on a terminal,
 * only for runs longer than about 2 s, at most a few times a second). */
#ifndef HK_CLI_H
#define HK_CLI_H

#include <stdint.h>

#ifndef HK_VERSION
#define HK_VERSION "unknown" /* CMake sets it from the project's version */
#endif

/* Each returns 0, or -1 after printing "prog: opt: expected ..., got 'v'" on stderr. */
int hk_cli_int(const char *prog, const char *opt, const char *v, long long min, long long max,
               long long *out);
int hk_cli_real(const char *prog, const char *opt, const char *v, double min, double max,
                double *out);
/* A positive time (bare numbers in unit_us). */
int hk_cli_time(const char *prog, const char *opt, const char *v, int64_t unit_us, int64_t *out);
void hk_cli_version(const char *prog);
/* --strategy's value: a comma list of exact names, `all` (searchd's four) and `every` (the
 * extensions too), each once; ids in the order given. The count, or -1 after printing the
 * unknown name and the nearest known one. --variant's likewise (`all`, no extensions). */
int hk_cli_strategies(const char *prog, const char *opt, const char *v, int *ids, int max);
/* --fail-on's value: a comma list of finding kinds (or severe); 0, or -1 after printing. */
int hk_cli_kinds(const char *prog, const char *opt, const char *v);
int hk_cli_variants(const char *prog, const char *opt, const char *v, int *ids, int max);

typedef struct hk_progress {
    int on;                      /* stderr is a terminal and not --quiet */
    double t0, last;             /* monotonic seconds */
    int shown;
    const char *prog;
} hk_progress;

void hk_progress_init(hk_progress *p, const char *prog, int quiet);
/* frac in [0,1] (negative: unknown); what: a short text ("run 3 of 8"). */
void hk_progress_update(hk_progress *p, double frac, const char *what);
/* Clear the line (if one was shown). */
void hk_progress_done(hk_progress *p);

#endif
