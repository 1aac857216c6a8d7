/* hasim_initburst: ERROR bursts in a query log — when the errors a log's error= / warning=
 * entries name for one agent come in a stretch of time rather than spread over the run. The
 * log's time is cut into bins (1 s, merged pairwise as the log outgrows LOG_BINS: memory is
 * bounded by the bins, not the log); per table the searches, per named host its errors. A
 * window of a karma period (5 s at least) is a burst when its errors are beyond its attempts
 * at the host's median window rate (1% at least: a steady rate is no burst) with P < 1e-6
 * (binomial); consecutive ones make one `errors(P)` fault, its edges then placed to the bin
 * (bins whose rate is nearer the burst's than the reference's), and the host's whole-run rate
 * comes from the other windows. */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hasim_init.h"

#define BURST_ALPHA 1e-6
#define BURST_NOISE 0.01
#define BURST_MIN_ERRORS 5

/* Merge bins pairwise in every series: the width doubles. */
static void halve(logsum *ls)
{
    for (int k = 0; k < LOG_TABLES; k++)
        for (int b = 0; ls->qbin[k] && b < LOG_BINS / 2; b++) {
            ls->qbin[k][b] = ls->qbin[k][2 * b] + ls->qbin[k][2 * b + 1];
            ls->qbin[k][LOG_BINS / 2 + b] = 0;
        }
    for (int h = 0; h < ls->nhosts; h++)
        for (int b = 0; ls->hosts[h].ebin && b < LOG_BINS / 2; b++) {
            ls->hosts[h].ebin[b] = ls->hosts[h].ebin[2 * b] + ls->hosts[h].ebin[2 * b + 1];
            ls->hosts[h].ebin[LOG_BINS / 2 + b] = 0;
        }
    ls->bin_us *= 2;
}

/* The bin of t (merging as needed); -1 before the log's first entry. */
static int bin_of(logsum *ls, int64_t t_us)
{
    if (t_us < ls->first_us)
        return -1;
    if (!ls->bin_us)
        ls->bin_us = 1000000;
    while ((t_us - ls->first_us) / ls->bin_us >= LOG_BINS)
        halve(ls);
    return (int)((t_us - ls->first_us) / ls->bin_us);
}

void initburst_query(logsum *ls, int k, int64_t t_us)
{
    if (k < 0 || k >= LOG_TABLES)
        return;
    if (!ls->qbin[k] && !(ls->qbin[k] = calloc(LOG_BINS, sizeof *ls->qbin[k])))
        return; /* out of memory: no bursts, the whole-run rate as before */
    int b = bin_of(ls, t_us);
    if (b >= 0)
        ls->qbin[k][b]++;
}

void initburst_error(logsum *ls, int h, int64_t t_us)
{
    loghost *x = &ls->hosts[h];
    if (!x->ebin && !(x->ebin = calloc(LOG_BINS, sizeof *x->ebin)))
        return;
    int b = bin_of(ls, t_us);
    if (b >= 0)
        x->ebin[b]++;
}

void initburst_free(logsum *ls)
{
    for (int k = 0; k < LOG_TABLES; k++)
        free(ls->qbin[k]);
    for (int h = 0; h < ls->nhosts; h++)
        free(ls->hosts[h].ebin);
}

/* Window w's searches of table k and errors of host x (bins [w*per, (w+1)*per)). */
static void window(const logsum *ls, int k, const loghost *x, int w, int per, double *q, double *e)
{
    *q = *e = 0;
    for (int b = w * per; b < (w + 1) * per && b < LOG_BINS; b++) {
        *q += ls->qbin[k][b];
        *e += x->ebin[b];
    }
}

/* Bin b's attempts (the answered share and the errors) and errors of host x; 0 outside. */
static double bin_rate(const logsum *ls, int k, const loghost *x, int b, double share, double *att)
{
    *att = 0;
    if (b < 0 || b >= LOG_BINS)
        return -1;
    *att = ls->qbin[k][b] * share + x->ebin[b];
    return *att >= 1 ? x->ebin[b] / *att : -1;
}

/* A burst's edges to the bin: bins either side joined while their error rate is nearer the
 * burst's than the reference p0, then bins at its ends whose rate is nearer p0 dropped (the
 * windows found it; the bins place it). Its errors and attempts recounted. */
static void refine(const logsum *ls, int k, const loghost *x, double share, double p0,
                   double bin_s, initburst *u)
{
    int lo = (int)llround(u->from_s / bin_s), hi = (int)llround(u->to_s / bin_s) - 1;
    double att, cut = (p0 + u->errors / u->attempts) / 2;
    while (bin_rate(ls, k, x, lo - 1, share, &att) >= cut)
        lo--;
    while (bin_rate(ls, k, x, hi + 1, share, &att) >= cut)
        hi++;
    while (lo < hi && bin_rate(ls, k, x, lo, share, &att) < cut)
        lo++;
    while (hi > lo && bin_rate(ls, k, x, hi, share, &att) < cut)
        hi--;
    u->errors = u->attempts = 0;
    for (int b = lo; b <= hi; b++) {
        bin_rate(ls, k, x, b, share, &att);
        u->attempts += att;
        u->errors += x->ebin[b];
    }
    u->from_s = lo * bin_s;
    u->to_s = (hi + 1) * bin_s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int initburst_find(const logsum *ls, int k, const char *host, double share, double karma_s,
                   initburst *out, int max, double *rest_p)
{
    *rest_p = -1;
    const loghost *x = NULL;
    for (int h = 0; h < ls->nhosts && !x; h++)
        if (!strcmp(ls->hosts[h].name, host))
            x = &ls->hosts[h];
    if (!x || !x->ebin || k < 0 || k >= LOG_TABLES || !ls->qbin[k] || !ls->bin_us || share <= 0)
        return 0;
    double w_s = fmax(5.0, karma_s), bin_s = (double)ls->bin_us / 1e6;
    int per = (int)fmax(1.0, round(w_s / bin_s)), nw = (LOG_BINS + per - 1) / per, n = 0, used = 0;
    double qa = 0, ea = 0;
    for (int w = 0; w < nw; w++) {
        double q, e;
        window(ls, k, x, w, per, &q, &e);
        qa += q * share;
        ea += e;
        used += q > 0;
    }
    /* the reference: its median window rate (a steady rate is no burst), 1% at least */
    double *rates = malloc((size_t)nw * sizeof *rates);
    int nr = 0;
    for (int w = 0; rates && w < nw; w++) {
        double q, e;
        window(ls, k, x, w, per, &q, &e);
        if (q * share + e >= 1)
            rates[nr++] = e / (q * share + e);
    }
    double p0 = fmax(BURST_NOISE, nr ? median(rates, nr) : 0), rq = 0, re = 0;
    free(rates);
    int bursty = 0;
    for (int w = 0; w < nw; w++) {
        double q, e;
        window(ls, k, x, w, per, &q, &e);
        double att = q * share + e; /* its attempts: the answered share and the errors */
        int hot = e >= BURST_MIN_ERRORS && att >= 1 &&
                  gsl_cdf_binomial_Q((unsigned)(e - 1), p0, (unsigned)ceil(att)) < BURST_ALPHA;
        if (!hot) {
            rq += att;
            re += e;
            continue;
        }
        bursty++;
        double from = w * per * bin_s, to = (w + 1) * per * bin_s;
        if (n > 0 && fabs(out[n - 1].to_s - from) < 1e-9) {
            out[n - 1].to_s = to;
            out[n - 1].errors += e;
            out[n - 1].attempts += att;
        } else if (n < max) {
            out[n++] = (initburst){.from_s = from, .to_s = to, .errors = e, .attempts = att};
        }
    }
    (void)qa;
    (void)ea;
    if (bursty * 5 >= used * 4) /* most of the run: a rate, not a burst */
        return 0;
    for (int i = 0; i < n; i++)
        refine(ls, k, x, share, p0, bin_s, &out[i]);
    *rest_p = rq > 0 ? re / rq : 0;
    return n;
}
