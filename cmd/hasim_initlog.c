/* hasim_initlog: a query log read for hasim init (see hasim_init.h) — how many searches over
 * which span, the ERROR evidence by the agent it names, and a uniform sample of each agent
 * line's times (at most LOG_SAMPLES a line: memory bounded by lines, not queries). */
#include "hasim_init.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_trace.h"

#define P "hasim init"

/* xorshift64*: the sample's choices, the same for the same log. */
static uint64_t next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

/* One time of line l (reservoir sampling: each of the `seen` so far kept with equal chance). */
static void keep(logline *l, double ms, uint64_t *rs)
{
    if (!l->ms && !(l->ms = malloc(LOG_SAMPLES * sizeof *l->ms)))
        return;
    l->seen++;
    if (l->n < LOG_SAMPLES) {
        l->ms[l->n++] = ms;
        return;
    }
    uint64_t k = next(rs) % (uint64_t)l->seen;
    if (k < LOG_SAMPLES)
        l->ms[k] = ms;
}

static int table_index(logsum *ls, const char *name)
{
    int k = 0;
    while (k < ls->ntables && strcmp(ls->tables[k], name))
        k++;
    if (k == ls->ntables && k < LOG_TABLES)
        snprintf(ls->tables[ls->ntables++], sizeof ls->tables[0], "%s", name);
    return k < LOG_TABLES ? k : -1;
}

static void blame(logsum *ls, const hk_qrec *q)
{
    ls->failed += q->outcome == HK_QLOG_FAILED;
    ls->warned += q->outcome == HK_QLOG_WARNED;
    if (!q->blame[0]) {
        ls->unnamed++;
        return;
    }
    int h = 0;
    while (h < ls->nhosts && strcmp(ls->hosts[h].name, q->blame))
        h++;
    if (h == LOG_HOSTS)
        return;
    if (h == ls->nhosts)
        snprintf(ls->hosts[ls->nhosts++].name, sizeof ls->hosts[0].name, "%s", q->blame);
    int ch = ls->inc ? hk_cluster_find_host(ls->cl, q->blame) : -1;
    if (ch >= 0 && hk_incident_fault_at(ls->inc, ch, (double)q->t_us / 1e6, ls->inc->period_s)) {
        ls->hosts[h].in_fault++;
        ls->in_fault++;
        return;
    }
    ls->hosts[h].failed += q->outcome == HK_QLOG_FAILED;
    ls->hosts[h].warned += q->outcome == HK_QLOG_WARNED;
    initburst_error(ls, h, q->t_us);
}

static void record(logsum *ls, const hk_qrec *q)
{
    if (!ls->n++)
        ls->first_us = q->t_us;
    ls->last_us = q->t_us > ls->last_us ? q->t_us : ls->last_us;
    int k = table_index(ls, q->table);
    if (k >= 0) {
        ls->searches[k]++;
        initburst_query(ls, k, q->t_us);
        /* a faulted mirror's times are no mirror's own shape (a karma period either side) */
        int out = q->nagents && ls->inc &&
                  hk_incident_fault_at(ls->inc, -1, (double)q->t_us / 1e6, ls->inc->period_s);
        ls->unfitted += out;
        for (int j = 0; !out && j < q->nagents && j < LOG_LINES; j++)
            keep(&ls->line[k][j], 1000 * q->agent_s[j], &ls->rs);
    }
    if (q->outcome != HK_QLOG_ANSWERED)
        blame(ls, q);
}

int initlog_read(const char *path, const hk_incident *inc, const hk_cluster *cl, logsum *ls,
                 hk_err *e)
{
    hk_trace t;
    hk_qrec q = {0};
    memset(ls, 0, sizeof *ls);
    ls->inc = inc;
    ls->cl = cl;
    ls->rs = 0x9E3779B97F4A7C15ULL;
    if (hk_trace_open(&t, path, HK_TRACE_AUTO, NULL, e) < 0)
        return -1;
    int r;
    while ((r = hk_trace_next(&t, &q, e)) == 1)
        record(ls, &q);
    ls->not_search = t.skipped;
    ls->garbage = t.garbage;
    ls->batched = t.batched;
    if (r == 0 && t.echoes)
        fprintf(stderr, P ": note: %s: %ld error entries of failed statements (Manticore's "
                "' # error=' lines) were not taken as searches: a query that ran has its own "
                "line, with its outcome\n", path, t.echoes);
    hk_trace_close(&t);
    if (r == 0 && (ls->not_search || ls->garbage))
        fprintf(stderr, P ": note: %s: %ld entries that are no search (SHOW, SET, SELECT 1, ...) "
                "and %ld lines that are no log entry were not taken as searches\n", path,
                ls->not_search, ls->garbage);
    if (r == 0 && ls->unfitted)
        fprintf(stderr, P ": note: %s: the agents=() times of %ld searches during the incident's "
                "faults (a karma period either side) are not fitted: a faulted mirror's times "
                "are no mirror's own shape\n", path, ls->unfitted);
    if (r == 0 && ls->batched)
        fprintf(stderr, P ": note: %s: %ld searches came in multi-query batches after the "
                "batch's first: one request to the agents per batch, so they are no arrival\n",
                path, ls->batched);
    return r < 0 ? -1 : 0;
}

void initlog_free(logsum *ls)
{
    initburst_free(ls);
    for (int k = 0; k < LOG_TABLES; k++)
        for (int j = 0; j < LOG_LINES; j++)
            free(ls->line[k][j].ms);
}

const char *initlog_mapped(const logsum *ls, const char *log_table)
{
    size_t n = strlen(log_table);
    for (int i = 0; i < ls->ntmap; i++)
        if (!strncmp(ls->tmap[i], log_table, n) && ls->tmap[i][n] == '=')
            return ls->tmap[i] + n + 1;
    return NULL;
}

int initlog_table(const logsum *ls, const hk_cluster *cl, int t)
{
    for (int k = 0; k < ls->ntables; k++) {
        const char *to = initlog_mapped(ls, ls->tables[k]);
        if (!strcmp(ls->tables[k], cl->tables[t].name) || (to && !strcmp(to, cl->tables[t].name)))
            return k;
    }
    return -1;
}

int initlog_tables_served(const logsum *ls, const hk_cluster *cl, char *unserved, size_t n)
{
    int served = 0;
    unserved[0] = '\0';
    for (int k = 0; k < ls->ntables; k++) {
        const char *to = initlog_mapped(ls, ls->tables[k]);
        if (hk_cluster_find_table(cl, ls->tables[k]) || (to && hk_cluster_find_table(cl, to))) {
            served++;
        } else if (strlen(unserved) + strlen(ls->tables[k]) + 3 < n) {
            snprintf(unserved + strlen(unserved), n - strlen(unserved), "%s%s",
                     unserved[0] ? ", " : "", ls->tables[k]);
        }
    }
    return served;
}

long initlog_named(const logsum *ls, const char *host)
{
    for (int h = 0; h < ls->nhosts; h++)
        if (!strcmp(ls->hosts[h].name, host))
            return ls->hosts[h].failed + ls->hosts[h].warned;
    return 0;
}

/* The log's times of line l are whole milliseconds (2.2.11, Manticore): 1 (the fits spread
 * them over their millisecond), else 0. */
static double cut_of(const logline *l)
{
    int whole = 1;
    for (long i = 0; i < l->n && whole; i++)
        whole = fabs(l->ms[i] - floor(l->ms[i] + 0.5)) < 1e-6;
    return whole ? 1.0 : 0;
}

/* A copy of line (t, j)'s kept times into *x (the caller frees it) and their cut into *q:
 * their count, 0 when the log has none or no memory is left. */
static long line_times(const logsum *ls, const hk_cluster *cl, int t, int j, double **x,
                       double *q)
{
    int k = initlog_table(ls, cl, t);
    *x = NULL;
    if (k < 0 || j >= LOG_LINES || !ls->line[k][j].n)
        return 0;
    const logline *l = &ls->line[k][j];
    *q = cut_of(l);
    if (!(*x = malloc((size_t)l->n * sizeof **x)))
        return 0;
    memcpy(*x, l->ms, (size_t)l->n * sizeof **x);
    return l->n;
}

int initlog_fit(logsum *ls, const hk_cluster *cl, int t, int j, hk_fit *f)
{
    double *x, q = 0;
    long n = line_times(ls, cl, t, j, &x, &q);
    int r = n ? hk_fit_times(x, n, q, f) : -1;
    free(x);
    return r;
}

int initlog_fitmix(const logsum *ls, const hk_cluster *cl, int t, int j, hk_fitmix *m)
{
    double *x, q = 0;
    long n = line_times(ls, cl, t, j, &x, &q);
    int r = n ? hk_fitmix_times(x, n, q, m) : -1;
    free(x);
    return r;
}
