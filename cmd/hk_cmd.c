/* hk_cmd: option tables into getopt_long, --help, --version and the shared printers (see
 * hk_cmd.h). */
#include "hk_cmd.h"

#include <getopt.h>
#include <stdarg.h>
#include <string.h>
#include "hk_keys.h"

#define MAXOPT 64
#define COL 24                   /* where an option's help starts */
#define WIDTH 92                 /* --help's lines end before it */
#define VAL_HELP 'h'             /* getopt values of --help and --version (1: an operand) */
#define VAL_VERSION 200
#define VAL_MAN 201              /* --hakarma-man: the man page section (the build's, not --help's) */
#define VAL_OPT 256              /* + the option's index in the command's flat list */

typedef struct flat {
    const hk_opt *o[MAXOPT];
    size_t base[MAXOPT];
    int n;
} flat;

static void flatten(const hk_cmd *c, flat *f)
{
    f->n = 0;
    for (int s = 0; s < HK_CMD_SETS; s++)
        for (const hk_opt *o = c->sets[s].opts; o && o->name && f->n < MAXOPT; o++) {
            f->o[f->n] = o;
            f->base[f->n++] = c->sets[s].base;
        }
}

static void opt_name(const hk_opt *o, char *b, size_t n)
{
    snprintf(b, n, "%s%s", o->name[1] ? "--" : "-", o->name);
}

int hk_cmd_bad(const hk_cmd *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", c->prog);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%s: see %s --help\n", c->prog, c->prog);
    return HK_EXIT_USAGE;
}

static int store(const hk_cmd *c, const flat *f, int i, void *args, const char *v)
{
    const hk_opt *o = f->o[i];
    char *set = (char *)args + f->base[i];
    void *field = set + o->off;
    char name[64];
    opt_name(o, name, sizeof name);
    switch (o->kind) {
    case HK_OPT_FLAG:
        *(int *)field = 1;
        return 0;
    case HK_OPT_STR:
        *(const char **)field = v;
        return 0;
    case HK_OPT_INT:
        return hk_cmd_int(c->prog, name, v, o->min, o->max, field);
    case HK_OPT_TIME:
        return hk_cmd_time(c->prog, name, v, o->min, field);
    case HK_OPT_FN:
        return o->fn(set, c->prog, name, v);
    }
    return -1;
}

/* The option getopt did not know, in the command's words, with the nearest known name. */
static int unknown(const hk_cmd *c, const flat *f, const char *arg, int optopt_v)
{
    if (optopt_v >= VAL_OPT) {
        char name[64];
        opt_name(f->o[optopt_v - VAL_OPT], name, sizeof name);
        return hk_cmd_bad(c, "%s takes no value, got '%s'", name, arg);
    }
    if (optopt_v > 0 && optopt_v < VAL_OPT && optopt_v != '?')
        return hk_cmd_bad(c, "unknown option '-%c'", optopt_v);
    const char *names[MAXOPT + 3];
    char buf[MAXOPT][48];
    int n = 0;
    for (int i = 0; i < f->n; i++) {
        snprintf(buf[i], sizeof buf[i], "%s%s", f->o[i]->name[1] ? "--" : "-", f->o[i]->name);
        names[n++] = buf[i];
    }
    names[n++] = "--help";
    names[n++] = "--version";
    names[n] = NULL;
    char w[64];
    snprintf(w, sizeof w, "%.*s", (int)strcspn(arg, "="), arg);
    const char *near = hk_nearest(w, names);
    int prefix = 0;
    for (int i = 0; i < n && strlen(w) > 2; i++)
        prefix += !strncmp(names[i], w, strlen(w));
    if (prefix > 1)
        return hk_cmd_bad(c, "option '%s' is ambiguous: give the whole name", w);
    if (near)
        return hk_cmd_bad(c, "unknown option '%s' (did you mean '%s'?)", w, near);
    return hk_cmd_bad(c, "unknown option '%s'", w);
}

static int build(const flat *f, struct option *lo, char *shorts, size_t ns)
{
    int k = 0;
    size_t s = 0;
    shorts[s++] = '-'; /* operands in order, wherever they are: no reliance on permutation */
    shorts[s++] = ':'; /* a missing value is told apart from an unknown option */
    shorts[s++] = 'h';
    for (int i = 0; i < f->n; i++) {
        const hk_opt *o = f->o[i];
        if (!o->name[1] && s + 3 < ns) {
            shorts[s++] = o->name[0];
            if (o->kind != HK_OPT_FLAG)
                shorts[s++] = ':';
            continue;
        }
        lo[k++] = (struct option){o->name, o->kind == HK_OPT_FLAG ? no_argument
                                                                  : required_argument,
                                  NULL, VAL_OPT + i};
    }
    lo[k++] = (struct option){"help", no_argument, NULL, VAL_HELP};
    lo[k++] = (struct option){"version", no_argument, NULL, VAL_VERSION};
    lo[k++] = (struct option){"hakarma-man", no_argument, NULL, VAL_MAN};
    lo[k] = (struct option){NULL, 0, NULL, 0};
    shorts[s] = '\0';
    return 0;
}

static int short_index(const flat *f, int ch)
{
    for (int i = 0; i < f->n; i++)
        if (!f->o[i]->name[1] && f->o[i]->name[0] == ch)
            return i;
    return -1;
}

int hk_cmd_parse(const hk_cmd *c, int argc, char **argv, void *args, const char **pos,
                 int *npos)
{
    flat f;
    flatten(c, &f);
    struct option lo[MAXOPT + 4];
    char shorts[2 * MAXOPT + 8];
    build(&f, lo, shorts, sizeof shorts);
    *npos = 0;
    opterr = 0;
    optind = 0; /* glibc: start afresh */
    int ch, help = 0;
    while ((ch = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
        int i = ch >= VAL_OPT ? ch - VAL_OPT : short_index(&f, ch);
        if (ch == 1) {
            if (*npos == c->max_args)
                return hk_cmd_bad(c, c->max_args ? "one %s at a time, got another: '%s'"
                                                 : "takes no %s, got '%s'",
                                  c->args ? c->args : "operand", optarg);
            pos[(*npos)++] = optarg;
        } else if (ch == 'h' || ch == VAL_HELP) {
            help = 1;
        } else if (ch == VAL_VERSION) {
            help = help ? help : 2;
        } else if (ch == VAL_MAN) {
            help = 3;
        } else if (ch == ':') {
            char name[64] = "";
            if (optopt >= VAL_OPT)
                opt_name(f.o[optopt - VAL_OPT], name, sizeof name);
            else
                snprintf(name, sizeof name, "-%c", optopt);
            int k = optopt >= VAL_OPT ? optopt - VAL_OPT : short_index(&f, optopt);
            return hk_cmd_bad(c, "%s needs a value (%s)", name, k >= 0 ? f.o[k]->arg : "?");
        } else if (ch == '?' || i < 0) {
            return unknown(c, &f, argv[optind - 1], optopt);
        } else if (store(c, &f, i, args, optarg) < 0) {
            fprintf(stderr, "%s: see %s --help\n", c->prog, c->prog);
            return HK_EXIT_USAGE;
        }
    }
    if (help == 1)
        hk_cmd_help(c, stdout);
    else if (help == 2)
        hk_cmd_version(c->prog);
    else if (help == 3)
        hk_cmd_man(c, stdout);
    if (help)
        return -1;
    if (*npos < c->min_args)
        return hk_cmd_bad(c, "expected %s", c->args ? c->args : "an operand");
    return 0;
}

/* Lines of text, each indented by ind (but the first, which continues a line at col). */
static void lines(FILE *f, const char *t, int col, int ind)
{
    for (int first = 1; t && *t; first = 0) {
        size_t l = strcspn(t, "\n");
        fprintf(f, "%*s%.*s\n", first ? (col < ind ? ind - col : 1) : ind, "", (int)l, t);
        t += l + (t[l] == '\n');
    }
}

/* Words of t from column col, broken before WIDTH, further lines indented by ind. */
static void wrap(FILE *f, const char *t, int col, int ind)
{
    for (int first = 1; *t; first = 0) {
        size_t w = strcspn(t, " \n");
        if (!first && col + 1 + (int)w >= WIDTH) {
            fprintf(f, "\n%*s", ind, "");
            col = ind;
        } else if (!first) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", (int)w, t);
        col += (int)w;
        t += w + (t[w] != '\0');
    }
    fputc('\n', f);
}

static void help_opt(FILE *f, const hk_opt *o)
{
    char head[96];
    int n = snprintf(head, sizeof head, "  %s%s%s%s", o->name[1] ? "--" : "-", o->name,
                     o->arg ? " " : "", o->arg ? o->arg : "");
    fputs(head, f);
    if (n >= COL - 1) { /* a long head: the help goes under it */
        fputc('\n', f);
        n = 0;
    }
    lines(f, o->help, n, COL);
    if (o->names) {
        char b[600];
        snprintf(b, sizeof b, "(%s)", o->names());
        fprintf(f, "%*s", COL, "");
        wrap(f, b, COL, COL);
    }
}

void hk_cmd_help(const hk_cmd *c, FILE *f)
{
    const char *u = c->usage;
    for (int first = 1; u && *u; first = 0) {
        size_t l = strcspn(u, "\n");
        fprintf(f, "%s %s %.*s\n", first ? "usage:" : "      ", c->prog, (int)l, u);
        u += l + (u[l] == '\n');
    }
    lines(f, c->about, 0, 2);
    fprintf(f, "options:\n");
    flat fl;
    flatten(c, &fl);
    int fail_on = 0;
    for (int i = 0; i < fl.n; i++) {
        help_opt(f, fl.o[i]);
        fail_on |= !strcmp(fl.o[i]->name, "fail-on");
    }
    fprintf(f, "  -h, --help%*sthis text (stdout); --version: the version\n", COL - 12, "");
    if (c->tail)
        fputs(c->tail, f);
    char codes[400];
    snprintf(codes, sizeof codes, "exit codes: 0 ok; 1 run-time failure; 2 bad command line; 3 "
             "bad input (a file, named with its line and column)%s; 128+N stopped by signal N",
             fail_on ? "; 4 a finding of a --fail-on kind (the files complete)" : "");
    wrap(f, codes, 0, 2);
}

/* t as roff text: a backslash escaped, a line that would start with '.' or '\'' guarded, '-'
 * as \- (a hyphen-minus, as options are typed). */
static void roff(FILE *f, const char *t)
{
    for (int bol = 1; t && *t; t++) {
        if (bol && (*t == '.' || *t == '\''))
            fputs("\\&", f);
        if (*t == '\\')
            fputs("\\e", f);
        else if (*t == '-')
            fputs("\\-", f);
        else
            fputc(*t, f);
        bol = *t == '\n';
    }
}

void hk_cmd_man(const hk_cmd *c, FILE *f)
{
    fputs(".SS \"", f);
    roff(f, c->prog);
    fputs("\"\n.nf\n", f);
    const char *u = c->usage;
    for (; u && *u;) {
        size_t l = strcspn(u, "\n");
        char line[600];
        snprintf(line, sizeof line, "%s %.*s\n", c->prog, (int)l, u);
        fputs(".B ", f);
        roff(f, line);
        u += l + (u[l] == '\n');
    }
    fputs(".fi\n.PP\n", f);
    roff(f, c->about);
    fputs("\n", f);
    flat fl;
    flatten(c, &fl);
    for (int i = 0; i < fl.n; i++) {
        const hk_opt *o = fl.o[i];
        char head[96];
        snprintf(head, sizeof head, "%s%s%s%s", o->name[1] ? "--" : "-", o->name,
                 o->arg ? " " : "", o->arg ? o->arg : "");
        fputs(".TP\n.B ", f);
        roff(f, head);
        fputs("\n", f);
        roff(f, o->help);
        if (o->names) {
            fputs("\n(", f);
            roff(f, o->names());
            fputs(")", f);
        }
        fputs("\n", f);
    }
    fputs(".TP\n.B \\-h, \\-\\-help, \\-\\-version\nthis text; the version\n", f);
    if (c->tail) {
        fputs(".PP\n.nf\n", f);
        roff(f, c->tail);
        fputs(".fi\n", f);
    }
}

void hk_cmd_version(const char *prog) { printf("%s (hakarma) %s\n", prog, HK_VERSION); }

int hk_cmd_stopped(int sig) { return HK_EXIT_SIGNAL + sig; }

void hk_cmd_say(void *prog, const char *line) { fprintf(stderr, "%s: %s\n", (const char *)prog, line); }

hk_say hk_cmd_sayer(const char *prog, int quiet)
{
    return (hk_say){.fn = quiet ? NULL : hk_cmd_say, .user = (void *)prog};
}
