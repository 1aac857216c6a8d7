/* rl_wsave: what `hareal watch` keeps on disk. A master's snapshots, each written whole
 * (status.EPOCH.tsv appears complete or not at all: hk_out's part file, then a rename) in its
 * folder, the oldest removed once the folder holds more than keep_bytes or older than keep_s;
 * and the findings' log DIR/events.jsonl, one JSON object a line (jansson, never hand-escaped),
 * each line flushed whole. Nothing is written through a link (hk_dir_open, hk_create_at). The
 * oldest's file is rewritten as the newest (hk_out_reuse) when a snapshot pushes it out. */
#ifndef RL_WSAVE_H
#define RL_WSAVE_H

#include <stdint.h>
#include <stdio.h>
#include "hk_err.h"
#include "hk_watch.h"

typedef struct rl_wsnap {
    char name[48];
    int64_t bytes;
    double t_s;
} rl_wsnap;

typedef struct rl_wsave {
    char dir[1200];
    int64_t keep_bytes, bytes;
    double keep_s;
    rl_wsnap *q;                 /* saved, oldest first: q[head .. head + n) (owned) */
    int head, n, cap;
} rl_wsave;

/* The folder dir made (and noted in its run's list). 0, or -1 with e. */
int rl_wsave_open(rl_wsave *s, const char *dir, int64_t keep_bytes, double keep_s, hk_err *e);
/* Save text as name (taken at t_s), then remove the oldest past the bounds. 0, or -1 with e. */
int rl_wsave_put(rl_wsave *s, const char *name, const char *text, size_t len, double t_s,
                 hk_err *e);
void rl_wsave_close(rl_wsave *s);

/* DIR/events.jsonl created (noted in the run's list): a stream, or NULL with e. */
FILE *rl_wsave_events_open(const char *dir, hk_err *e);
/* One event's line: {"t", "event", "kind", "master", "table", "agent", "mirror", "evidence"}.
 * 0, or -1 with e when it cannot be written. */
int rl_wsave_event(FILE *f, const hk_wevent *ev, const char *master, const char *table,
                   const char *mirror, hk_err *e);

/* DIR/windows.csv created with its header (noted in the run's list): a stream, or NULL. */
FILE *rl_wsave_windows_open(const char *dir, hk_err *e);
/* Master m's last window, a row per mirror of each line: t_s, master, table, agent, mirror,
 * attempts, share, weight, answers, error_replies, query_timeouts, connect_timeouts,
 * refused, other_failures, mean_ms, alive, findings. 0, or -1 with e. */
int rl_wsave_windows(FILE *f, const hk_wmaster *m, const char *master, hk_err *e);

#endif
