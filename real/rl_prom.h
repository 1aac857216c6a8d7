/* rl_prom: the Prometheus text exposition format (version 0.0.4) written into a caller's
 * buffer: metric families with HELP and TYPE, samples with labels, and latency histograms
 * in seconds over fixed buckets (RL_PROM_BOUNDS). Names follow Prometheus conventions
 * (hakarma_ prefix, _total for counters, _seconds for times); promtool checks them in the
 * tests. */
#ifndef RL_PROM_H
#define RL_PROM_H

#include <stdint.h>
#include "hk_buf.h"

#define RL_PROM_CTYPE "text/plain; version=0.0.4; charset=utf-8"
#define RL_PROM_NB 14            /* finite bucket bounds; +Inf is the count */

typedef struct rl_prom_hist {
    uint64_t le[RL_PROM_NB];     /* observations <= each bound (cumulative when written) */
    uint64_t count;
    double sum;                  /* seconds */
} rl_prom_hist;

void rl_prom_observe(rl_prom_hist *h, double seconds);
/* "# HELP name help" and "# TYPE name type" (counter, gauge, histogram). */
void rl_prom_family(hk_buf *b, const char *name, const char *type, const char *help);
/* One sample: name{labels} value; labels "k=\"v\",..." or NULL (values escaped by the caller
 * with rl_prom_escape). */
void rl_prom_sample(hk_buf *b, const char *name, const char *labels, double v);
void rl_prom_count(hk_buf *b, const char *name, const char *labels, uint64_t v);
/* name_bucket{labels,le="..."}, name_sum, name_count. */
void rl_prom_histogram(hk_buf *b, const char *name, const char *labels, const rl_prom_hist *h);
/* A label value with \, " and newline escaped, into out (truncated to n - 1). */
void rl_prom_escape(const char *v, char *out, size_t n);

#endif
