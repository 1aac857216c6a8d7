/* rl_sdsum: summary.csv of a live run mastered by a real searchd — per mirror of each agent
 * line, what it received (its query logs) plus the connects that failed, its share of the
 * line, the failures searchd's messages charged to it, and its own latency percentiles. */
#ifndef RL_SDSUM_H
#define RL_SDSUM_H

#include <stdint.h>
#include <stdio.h>
#include "hk_err.h"
#include "hk_file.h"
#include "hk_scn.h"

typedef struct rl_sdsum_in {
    const hk_scn *s;
    const char *dir;             /* the run's folder: summary.csv goes there */
    const char *logdir;          /* the mirrors' logs: mirror-H.START.csv */
    const int *starts;           /* per host: how many times it was started */
    const uint64_t *fail_query, *fail_connect;   /* per host, from searchd's messages */
    FILE *say[2];                /* also said in words here (NULL: not) */
} rl_sdsum_in;

/* 0, or -1 with e set (a log unreadable, the disk). */
int rl_sdsum_write(const rl_sdsum_in *in, hk_err *e);

#endif
