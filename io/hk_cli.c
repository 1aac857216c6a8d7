/* hk_cli: shared command-line helpers (see hk_cli.h). */
#include "hk_cli.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "hk_time.h"

int hk_cli_int(const char *prog, const char *opt, const char *v, long long min, long long max,
               long long *out)
{
    int bad;
    const char *what;
    if (hk_int_parse(v, min, max, out, &bad, &what) == 0)
        return 0;
    fprintf(stderr, "%s: %s: expected %s from %lld to %lld, got '%s'\n", prog, opt, what, min,
            max, v);
    return -1;
}

int hk_cli_real(const char *prog, const char *opt, const char *v, double min, double max,
                double *out)
{
    int bad;
    const char *what;
    if (hk_real_parse(v, min, max, out, &bad, &what) == 0)
        return 0;
    fprintf(stderr, "%s: %s: expected %s from %g to %g, got '%s'\n", prog, opt, what, min, max,
            v);
    return -1;
}

int hk_cli_time(const char *prog, const char *opt, const char *v, int64_t unit_us, int64_t *out)
{
    int bad;
    const char *what;
    if (hk_time_parse(v, unit_us, out, &bad, &what) == 0 && *out > 0)
        return 0;
    fprintf(stderr, "%s: %s: expected a positive time such as 90s, 500ms or 10m, got '%s'\n",
            prog, opt, v);
    return -1;
}

void hk_cli_version(const char *prog) { printf("%s (hakarma) %s\n", prog, HK_VERSION); }

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void hk_progress_init(hk_progress *p, const char *prog, int quiet)
{
    p->on = !quiet && isatty(2);
    p->t0 = p->last = mono();
    p->shown = 0;
    p->prog = prog;
}

void hk_progress_update(hk_progress *p, double frac, const char *what)
{
    if (!p->on)
        return;
    double now = mono();
    if (now - p->t0 < 2.0 || now - p->last < 0.25)
        return;
    p->last = now;
    p->shown = 1;
    if (frac < 0) { /* how far is unknown: what it has done */
        fprintf(stderr, "\r%s: %s, %.0f s   ", p->prog, what ? what : "", now - p->t0);
    } else {
        double eta = frac > 0.01 ? (now - p->t0) * (1 - frac) / frac : 0;
        fprintf(stderr, "\r%s: %5.1f%% %s, %.0f s left   ", p->prog, 100 * frac,
                what ? what : "", eta);
    }
    fflush(stderr);
}

void hk_progress_done(hk_progress *p)
{
    if (p->shown)
        fprintf(stderr, "\r%*s\r", 78, "");
    p->shown = 0;
}
