/* rl_prom: Prometheus text format writers (see rl_prom.h). */
#include "rl_prom.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const double bounds[RL_PROM_NB] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                          0.1,    0.25,  0.5,    1,     2.5,  5,     10};
static const char *const bound_s[RL_PROM_NB] = {"0.0005", "0.001", "0.0025", "0.005", "0.01",
                                                "0.025",  "0.05",  "0.1",    "0.25",  "0.5",
                                                "1",      "2.5",   "5",      "10"};

void rl_prom_observe(rl_prom_hist *h, double seconds)
{
    if (!(seconds >= 0))
        seconds = 0;
    for (int i = 0; i < RL_PROM_NB; i++)
        if (seconds <= bounds[i]) {
            h->le[i]++;
            break;
        }
    h->count++;
    h->sum += seconds;
}

void rl_prom_family(hk_buf *b, const char *name, const char *type, const char *help)
{
    hk_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void head(hk_buf *b, const char *name, const char *labels)
{
    if (labels && *labels)
        hk_buf_printf(b, "%s{%s} ", name, labels);
    else
        hk_buf_printf(b, "%s ", name);
}

void rl_prom_sample(hk_buf *b, const char *name, const char *labels, double v)
{
    head(b, name, labels);
    if (isnan(v))
        hk_buf_printf(b, "NaN\n");
    else if (isinf(v))
        hk_buf_printf(b, "%s\n", v > 0 ? "+Inf" : "-Inf");
    else
        hk_buf_printf(b, "%.9g\n", v);
}

void rl_prom_count(hk_buf *b, const char *name, const char *labels, uint64_t v)
{
    head(b, name, labels);
    hk_buf_printf(b, "%" PRIu64 "\n", v);
}

void rl_prom_histogram(hk_buf *b, const char *name, const char *labels, const rl_prom_hist *h)
{
    const char *sep = labels && *labels ? "," : "";
    uint64_t cum = 0;
    for (int i = 0; i < RL_PROM_NB; i++) {
        cum += h->le[i];
        hk_buf_printf(b, "%s_bucket{%s%sle=\"%s\"} %" PRIu64 "\n", name, labels ? labels : "",
                      sep, bound_s[i], cum);
    }
    hk_buf_printf(b, "%s_bucket{%s%sle=\"+Inf\"} %" PRIu64 "\n", name, labels ? labels : "", sep,
                  h->count);
    char n[128];
    snprintf(n, sizeof n, "%s_sum", name);
    rl_prom_sample(b, n, labels, h->sum);
    snprintf(n, sizeof n, "%s_count", name);
    rl_prom_count(b, n, labels, h->count);
}

void rl_prom_escape(const char *v, char *out, size_t n)
{
    size_t k = 0;
    for (; *v && k + 2 < n; v++) {
        if (*v == '\\' || *v == '"' || *v == '\n') {
            out[k++] = '\\';
            out[k++] = *v == '\n' ? 'n' : *v;
        } else
            out[k++] = *v;
    }
    if (n)
        out[k < n ? k : n - 1] = '\0';
}
