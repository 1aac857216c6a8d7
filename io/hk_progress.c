/* hk_progress: the progress line of long runs (see hk_progress.h). */
#include "hk_progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

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
