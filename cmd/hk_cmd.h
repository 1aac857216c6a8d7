/* hk_cmd: the command kit every hakarma front end is built on. A command declares its options
 * once, in tables (hk_opt); the kit turns them into libc's getopt_long parser, the --help text
 * and --version, checks every value (ranges, times, names), and says what is wrong the same
 * way everywhere: "PROG: what, got 'value'" then "PROG: see PROG --help", exit 2 (the exit
 * codes and the error printers every program shares are io/hk_exit.h). */
#ifndef HK_CMD_H
#define HK_CMD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "hk_err.h"
#include "hk_exit.h"

#ifndef HK_VERSION
#define HK_VERSION "unknown" /* CMake sets it from the project's version */
#endif

typedef enum hk_opt_kind {
    HK_OPT_FLAG,   /* int, set to 1 */
    HK_OPT_STR,    /* const char *, the argument itself */
    HK_OPT_INT,    /* long long within [min, max] */
    HK_OPT_TIME,   /* int64_t µs, positive; a bare number is in units of min µs */
    HK_OPT_FN      /* fn(set, prog, --name, value) checks and stores it */
} hk_opt_kind;

typedef struct hk_opt {
    const char *name;            /* without the dashes; one letter gives -x */
    const char *arg;             /* the value's name in --help; NULL for a flag */
    hk_opt_kind kind;
    size_t off;                  /* the field, in the set's struct */
    long long min, max;
    int (*fn)(void *set, const char *prog, const char *opt, const char *v); /* 0 or -1 said */
    const char *help;            /* its lines in --help, '\n' between them */
    const char *(*names)(void);  /* a list of names said after help, or NULL */
} hk_opt;

/* The options most commands take, declared once — each one's name, value and range here, what
 * it means for the command (its help) where the command lists it; off: its field. */
#define HK_SEED_MAX 4294967295LL /* seeds are 32-bit, as every run record writes them */
#define HK_OPT_QUIET(o_, h_) {.name = "quiet", .kind = HK_OPT_FLAG, .off = (o_), .help = (h_)}
#define HK_OPT_FORCE(o_, h_) {.name = "force", .kind = HK_OPT_FLAG, .off = (o_), .help = (h_)}
#define HK_OPT_OUT(o_, a_, h_)                                                                  \
    {.name = "out", .arg = (a_), .kind = HK_OPT_STR, .off = (o_), .help = (h_)}
#define HK_OPT_SEED(o_, h_)                                                                     \
    {.name = "seed", .arg = "N", .kind = HK_OPT_INT, .off = (o_), .max = HK_SEED_MAX, .help = (h_)}
#define HK_OPT_VARIANT(a_, f_, h_)                                                              \
    {.name = "variant", .arg = (a_), .kind = HK_OPT_FN, .fn = (f_), .help = (h_),              \
     .names = hk_variant_names}
#define HK_OPT_STRATEGY(a_, f_, h_)                                                             \
    {.name = "strategy", .arg = (a_), .kind = HK_OPT_FN, .fn = (f_), .help = (h_),             \
     .names = hk_strat_all_names}
#define HK_QUIET_HELP "print nothing but errors"

/* A run's seed: --seed's when given (>= 0), else the scenario's (its sim { seed }, else 1). */
static inline uint64_t hk_cmd_seed(long long given, uint64_t scenario)
{
    return given >= 0 ? (uint64_t)given : scenario;
}

/* A table of options (ending with a NULL name) and where its struct starts in the command's:
 * the options several commands share live in one table, in a struct of their own. */
typedef struct hk_optset {
    const hk_opt *opts;
    size_t base;
} hk_optset;

#define HK_CMD_SETS 3

typedef struct hk_cmd {
    const char *prog;            /* "hasim sweep" */
    const char *usage;           /* after "usage: PROG ", '\n' between forms */
    const char *about;           /* what it does, a paragraph */
    hk_optset sets[HK_CMD_SETS];
    int min_args, max_args;      /* operands (scenario, folders) */
    const char *args;            /* what the operands are, for errors: "a scenario file" */
    const char *tail;            /* after the options: files, notes, exit codes that differ */
} hk_cmd;

/* Parse argv[1..] (argv[0] is the command's name) into args. Returns 0 with the operands, in
 * their order wherever they stood, in pos (room for c->max_args) and their count in *npos;
 * -1 after printing --help or --version (exit 0); or HK_EXIT_USAGE after saying what is
 * wrong. */
int hk_cmd_parse(const hk_cmd *c, int argc, char **argv, void *args, const char **pos,
                 int *npos);
void hk_cmd_help(const hk_cmd *c, FILE *f);
/* The command's section of its program's man page, in roff, from the same table as --help
 * (the build writes hasim.1 and hareal.1 with it: --hakarma-man, which no --help lists). */
void hk_cmd_man(const hk_cmd *c, FILE *f);
/* "PROG: msg" and where help is, on stderr; returns HK_EXIT_USAGE. */
int hk_cmd_bad(const hk_cmd *c, const char *fmt, ...) HK_PRINTF(2, 3);
void hk_cmd_version(const char *prog);
/* An engine's line (hk_say's fn; user: the program's name) on stderr as "PROG: line". */
void hk_cmd_say(void *prog, const char *line);
/* A say that prints as prog, or says nothing when quiet. */
hk_say hk_cmd_sayer(const char *prog, int quiet);
/* A run stopped by signal sig: its exit code. */
int hk_cmd_stopped(int sig);

/* The checks behind the options, for values that are not an option's own (a part of one, a
 * config's). Each returns 0, or -1 after printing "prog: opt: expected ..., got 'v'". */
int hk_cmd_int(const char *prog, const char *opt, const char *v, long long min, long long max,
               long long *out);
int hk_cmd_real(const char *prog, const char *opt, const char *v, double min, double max,
                double *out);
int hk_cmd_time(const char *prog, const char *opt, const char *v, int64_t unit_us, int64_t *out);
/* A comma list of strategy names (exact; `all` = searchd's four, `every` = with the
 * extensions), each once: the count, or -1 after naming the unknown one and the nearest. */
int hk_cmd_strategies(const char *prog, const char *opt, const char *v, int *ids, int max);
/* Variant names likewise (`all`). */
int hk_cmd_variants(const char *prog, const char *opt, const char *v, int *ids, int max);
/* Exactly one name of those lists: 0 (*id set) or -1 after printing. */
int hk_cmd_strategy(const char *prog, const char *opt, const char *v, int *id);
int hk_cmd_variant(const char *prog, const char *opt, const char *v, int *id);
/* --table-map LOG=CONFIG: appends v to list (*n of at most max, v kept, not copied); -1 said. */
int hk_cmd_table_map(const char *prog, const char *opt, const char *v, const char **list, int *n,
                     int max);
/* Finding kinds (or severe), for --fail-on: 0 or -1. */
int hk_cmd_kinds(const char *prog, const char *opt, const char *v);
/* hareal watch's finding kinds (or severe), as bits (1 << hk_wkind): 0 or -1 said. */
int hk_cmd_wkinds(const char *prog, const char *opt, const char *v, unsigned *bits);

#endif
