/* hk_progress: the progress line of long runs — stderr, only on a terminal, only for runs
 * longer than about 2 s, at most a few times a second. */
#ifndef HK_PROGRESS_H
#define HK_PROGRESS_H

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
