/* hasim_initseries: `hasim init --status DIR_OR_FILES...` — the snapshots of a series read from
 * files and folders, each with the time its name says it was taken, sorted, and turned into an
 * incident's timeline (hk_incident): what `hasim init` writes as faults. */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "hasim_init.h"
#include "hk_evvar.h"
#include "hk_file.h"
#include "hk_grow.h"
#include "hk_time.h"

/* "status.1796364928.tsv", "status.1796364928.123.tsv" (date +%s, date +%s.%N) or
 * "status-20261204T101500Z.tsv" / "2026-12-04T10:15:00" (UTC): seconds since the epoch; -1. */
static double name_time(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    for (const char *p = b; *p; p++) {
        if (!isdigit((unsigned char)*p) || (p > b && isdigit((unsigned char)p[-1])))
            continue;
        int y, mo, d, h, mi, s, n = 0;
        if (sscanf(p, "%4d%2d%2dT%2d%2d%2d%n", &y, &mo, &d, &h, &mi, &s, &n) == 6 ||
            sscanf(p, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &n) == 6)
            return (double)(hk_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s);
        size_t k = strspn(p, "0123456789");
        if (k >= 9 && k <= 11) {
            return strtod(p, NULL);
        }
    }
    return -1;
}

static int add_path(initseries *s, const char *path, hk_err *e)
{
    if (s->n == HK_INCIDENT_SNAPS_MAX)
        return hk_err_set(e, path, 0, 0, "more than %d snapshots", HK_INCIDENT_SNAPS_MAX);
    if (HK_GROW(s->path, s->cap, s->n + 1) < 0 || !(s->path[s->n] = strdup(path)))
        return hk_err_set(e, path, 0, 0, "out of memory");
    s->n++;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files of folder dir (not hidden), in name order; anything else but a folder (a
 * FIFO, a socket, a device) is refused, named, never skipped in silence. */
static int add_dir(initseries *s, const char *dir, hk_err *e)
{
    DIR *d = opendir(dir);
    if (!d)
        return hk_err_set(e, dir, 0, 0, "cannot open the folder");
    int from = s->n, rc = 0;
    struct dirent *de;
    while (!rc && (de = readdir(d))) {
        char path[4096];
        struct stat sb;
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
            rc = add_path(s, path, e);
        else if (stat(path, &sb) < 0 || !S_ISDIR(sb.st_mode))
            rc = hk_file_regular(path, e); /* says what it is */
    }
    closedir(d);
    if (rc)
        return rc;
    if (s->n == from)
        return hk_err_set(e, dir, 0, 0, "the folder holds no snapshot files");
    qsort(s->path + from, (size_t)(s->n - from), sizeof *s->path, by_name);
    return rc;
}

static int by_time(const void *a, const void *b)
{
    const hk_snap *x = a, *y = b;
    return (x->t_s > y->t_s) - (x->t_s < y->t_s);
}

static int read_all(initseries *s, hk_err *e)
{
    s->st = calloc((size_t)s->n, sizeof *s->st);
    s->snap = calloc((size_t)s->n, sizeof *s->snap);
    if (!s->st || !s->snap)
        return hk_err_set(e, s->path[0], 0, 0, "out of memory");
    for (int i = 0; i < s->n; i++) {
        double t = name_time(s->path[i]);
        if (t < 0)
            return hk_err_set(e, s->path[i], 0, 0, "expected the time it was taken in its name: "
                              "status.EPOCH.tsv (date +%%s or +%%s.%%N) or "
                              "status.YYYYmmddTHHMMSSZ.tsv (UTC)");
        char *buf = NULL;
        size_t len;
        int rc = hk_file_read(s->path[i], &buf, &len, e) < 0 ? -1
                 : hk_evvar_read_status(s->path[i], &buf, &len, &s->st[i], e);
        free(buf);
        if (rc < 0)
            return -1;
        s->snap[i] = (hk_snap){t, s->path[i], &s->st[i]};
    }
    qsort(s->snap, (size_t)s->n, sizeof *s->snap, by_time);
    return 0;
}

/* 1 when a and b hold the same hosts with the same counters (the same snapshot saved twice). */
static int same_counters(const hk_status_file *a, const hk_status_file *b)
{
    if (a->nhosts != b->nhosts)
        return 0;
    for (int i = 0; i < a->nhosts; i++)
        if (strcmp(a->h[i].name, b->h[i].name) || memcmp(a->h[i].c, b->h[i].c, sizeof a->h[i].c) ||
            a->h[i].ev1 != b->h[i].ev1 || a->h[i].ev5 != b->h[i].ev5)
            return 0;
    return 1;
}

/* 1 when a and b name the same hosts in another order (agent rows swapped between them). */
static int swapped(const hk_status_file *a, const hk_status_file *b)
{
    int moved = 0, n = a->nhosts < b->nhosts ? a->nhosts : b->nhosts;
    for (int i = 0; i < n; i++) {
        if (!strcmp(a->h[i].name, b->h[i].name))
            continue;
        int there = 0;
        for (int j = 0; j < b->nhosts && !there; j++)
            there = !strcmp(a->h[i].name, b->h[j].name);
        moved |= there;
    }
    return moved;
}

/* A series checked for what no master prints, each contradiction named by its files: a host
 * twice in one snapshot and the same counters saved twice within a period are refused (the
 * second would count its failures twice); a 1-period window holding more events than the
 * 5-period one, agent rows swapped between snapshots and snapshots closer than a period are
 * warned about. */
static int check_series(const initseries *s, hk_err *e)
{
    for (int i = 0; i < s->n; i++) {
        const hk_status_file *st = s->snap[i].st;
        for (int a = 0; a < st->nhosts; a++) {
            for (int b = a + 1; b < st->nhosts; b++)
                if (!st->h[a].by_agent && !strcmp(st->h[a].name, st->h[b].name))
                    return hk_err_set(e, s->snap[i].name, 0, 0, "host %s twice (rows %d and "
                                      "%d): no master prints that; expected one row set per "
                                      "agent", st->h[a].name, a, b);
            if (st->h[a].have1 && st->h[a].have5 && st->h[a].ev5 < st->h[a].ev1)
                fprintf(stderr, "hasim init: warning: %s: %s's 5-period window holds fewer "
                        "events (%.0f) than its 1-period one (%.0f): no master prints that\n",
                        s->snap[i].name, st->h[a].name, st->h[a].ev5, st->h[a].ev1);
        }
        if (i == 0)
            continue;
        const hk_snap *p = &s->snap[i - 1], *q = &s->snap[i];
        double gap = q->t_s - p->t_s, period = (double)q->st->period_s;
        if (gap > 0 && same_counters(p->st, q->st) && (period <= 0 || gap < period))
            return hk_err_set(e, q->name, 0, 0, "holds the same counters as %s, %.1f s before: "
                              "the same snapshot saved twice (its failures would count twice); "
                              "expected one snapshot a karma period", p->name, gap);
        if (swapped(p->st, q->st))
            fprintf(stderr, "hasim init: warning: %s and %s list the same hosts in another "
                    "order: agent rows swapped (another master, or an edit?)\n", p->name,
                    q->name);
        if (gap > 0 && period > 0 && gap < 0.9 * period)
            fprintf(stderr, "hasim init: warning: %s and %s are %.1f s apart, less than a %.0f s "
                    "karma period: their windows overlap\n", p->name, q->name, gap, period);
    }
    return 0;
}

int initseries_read(const char *const *paths, int n, initseries *s, hk_err *e)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < n; i++) {
        struct stat sb;
        int rc = stat(paths[i], &sb) == 0 && S_ISDIR(sb.st_mode) ? add_dir(s, paths[i], e)
                 : add_path(s, paths[i], e);
        if (rc < 0)
            return -1;
    }
    return read_all(s, e) < 0 ? -1 : check_series(s, e);
}

int initseries_build(initseries *s, const hk_cluster *cl, hk_err *e)
{
    return hk_incident_build(s->snap, s->n, cl, &s->inc, e);
}

void initseries_free(initseries *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->path[i]);
        if (s->st)
            hk_status_file_free(&s->st[i]);
    }
    free(s->path);
    free(s->st);
    free(s->snap);
    hk_incident_free(&s->inc);
    memset(s, 0, sizeof *s);
}

/* The hosts the timeline shows: those with a fault first, at most SHOWN. */
#define SHOWN 6
static int shown(const initseries *s, int *h)
{
    int n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < s->inc.nhosts && n < SHOWN; k++) {
            int f = 0;
            for (int i = 0; i < s->inc.nfaults; i++)
                f |= s->inc.faults[i].host == k;
            if (f == !pass)
                h[n++] = k;
        }
    return n;
}

void initseries_timeline(FILE *o, const initseries *s, const hk_cluster *cl, double t0)
{
    const hk_incident *inc = &s->inc;
    char a[40], b[40];
    fprintf(o, "# The incident: %d snapshots of SHOW AGENT STATUS (%s ... %s), %g s periods, "
            "%s to %s. Per snapshot, each host's 1-period window: answers/failures "
            "(r refused, c connect timeouts, q query timeouts), the mean of its answers, errors in "
            "a row, and the state read from them. t: seconds from the run's start.\n", s->n,
            s->snap[0].name, s->snap[s->n - 1].name, inc->period_s,
            hk_iso_format((int64_t)(inc->start_s * 1e6), a, sizeof a),
            hk_iso_format((int64_t)(inc->end_s * 1e6), b, sizeof b));
    int h[SHOWN], n = shown(s, h);
    fprintf(o, "#   %8s", "t");
    for (int k = 0; k < n; k++)
        fprintf(o, "  %-34.34s", cl->hosts[h[k]].name);
    fprintf(o, "\n");
    for (int i = 0; i < inc->nsnap; i++) {
        fprintf(o, "#   %8.1f", s->snap[i].t_s - t0);
        for (int k = 0; k < n; k++) {
            const hk_inc_cell *x = &inc->cell[(size_t)i * inc->nhosts + h[k]];
            char cell[64], ms[16] = "-";
            if (x->mean_ms > 0)
                snprintf(ms, sizeof ms, "%.1fms", x->mean_ms);
            snprintf(cell, sizeof cell, "%.0f/%.0f(r%.0f c%.0f q%.0f) %s e%.0f %s", x->ok,
                     x->failed, x->refused, x->ctimeout, x->qtimeout, ms, x->errorsarow,
                     hk_inc_state_name(x->state));
            fprintf(o, "  %-34s", cell);
        }
        fprintf(o, "\n");
    }
    if (inc->nhosts > n)
        fprintf(o, "#   (%d more hosts without a fault not shown)\n", inc->nhosts - n);
    fprintf(o, "\n");
}

static void fault_why(char *b, size_t n, const initseries *s, const hk_inc_fault *f)
{
    if (f->kind == HK_FAULT_SLOW)
        snprintf(b, n, "its mean %.2fx its median %.2f ms in %d window(s), %s to %s", f->factor,
                 s->inc.median_ms[f->host], f->last - f->first + 1, s->snap[f->first].name,
                 s->snap[f->last].name);
    else
        snprintf(b, n, "dead in %d window(s), %s to %s: %.0f failures, up to %.0f errors in a "
                 "row%s", f->last - f->first + 1, s->snap[f->first].name, s->snap[f->last].name,
                 f->failed, f->errorsarow, f->open ? "; still dead at the last snapshot" : "");
}

void initseries_faults(FILE *o, const initseries *s, const hk_cluster *cl, double t0,
                       double run_s)
{
    for (int i = 0; i < s->inc.nfaults; i++) {
        const hk_inc_fault *f = &s->inc.faults[i];
        double at = f->from_s - t0, to = f->to_s - t0;
        char why[512], kind[32];
        fault_why(why, sizeof why, s, f);
        at = at < 0 ? 0 : at;
        to = to > run_s ? run_s : to;
        if (to - at < 0.001) {
            fprintf(o, "# %s: %s fault outside the run (%s)\n", cl->hosts[f->host].name,
                    hk_fault_name(f->kind), why);
            continue;
        }
        if (f->kind == HK_FAULT_SLOW)
            snprintf(kind, sizeof kind, "slow(%.2f)", f->factor);
        else
            snprintf(kind, sizeof kind, "%s", hk_fault_name(f->kind));
        fprintf(o, "fault %s { at = %.3fs  for = %.3fs  kind = %s }   # %s\n",
                cl->hosts[f->host].name, at, to - at, kind, why);
    }
}

void initseries_sources(const initseries *s, const hk_cluster *cl, hk_calib_host *c)
{
    for (int h = 0; h < cl->nhosts; h++) {
        int n = 0;
        for (int i = 0; i < s->inc.nsnap; i++)
            n += s->inc.cell[(size_t)i * s->inc.nhosts + h].state == HK_INC_OK;
        if (c[h].found)
            snprintf(c[h].source, sizeof c[h].source, "%d healthy 1-period windows of %d "
                     "snapshots", n, s->inc.nsnap);
    }
}

void initseries_say(FILE *o, const initseries *s, const hk_cluster *cl, double t0, double run_s)
{
    fprintf(o, "incident: %d snapshots, %g s periods, %.1f s: %d fault(s)\n", s->n,
            s->inc.period_s, s->inc.end_s - s->inc.start_s, s->inc.nfaults);
    for (int i = 0; i < s->inc.nfaults; i++) {
        const hk_inc_fault *f = &s->inc.faults[i];
        char why[512];
        fault_why(why, sizeof why, s, f);
        double at = f->from_s - t0, to = f->to_s - t0;
        const char *in = at < 0 || to > run_s ? "; in the scenario as far as the run goes" : "";
        if (fmin(to, run_s) - fmax(at, 0) < 0.001)
            in = "; outside the run: a comment in the scenario, no fault";
        fprintf(o, "  %s %s from %.1f s to %.1f s (%s%s)\n", cl->hosts[f->host].name,
                f->kind == HK_FAULT_SLOW ? "slow" : hk_fault_name(f->kind), at, to, why, in);
    }
}
