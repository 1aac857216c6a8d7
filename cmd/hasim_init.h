/* hasim_init: what `hasim init` gathers from a query log (hasim_initlog.c) for the scenario it
 * writes (hasim_init.c): the searches and their span, the table names, the ERROR evidence
 * (error= and warning= comments, by the agent they name) and each agent line's times
 * (agents=(...)), kept as a bounded sample per line for the latency fit. */
#ifndef HASIM_INIT_H
#define HASIM_INIT_H

#include <stdint.h>
#include "hk_cluster.h"
#include "hk_err.h"
#include "hk_fit.h"

#define LOG_TABLES 16
#define LOG_LINES 16             /* agent lines of a table whose times are kept */
#define LOG_SAMPLES 20000        /* times kept per line (a uniform sample of them all) */
#define LOG_HOSTS 256            /* agents named by error= / warning= */

typedef struct logline { double *ms; long n, seen; } logline;
typedef struct loghost { char name[128]; long failed, warned; } loghost;

typedef struct logsum {
    long not_search, garbage;    /* entries that are no search; lines that are no entry */
    long n;
    int64_t first_us, last_us;
    int ntables;
    char tables[LOG_TABLES][128];
    long searches[LOG_TABLES];   /* per table name */
    logline line[LOG_TABLES][LOG_LINES];
    long failed, warned;         /* queries with error= / warning= */
    long unnamed;                /* ... whose text names no agent */
    int nhosts;
    loghost hosts[LOG_HOSTS];
    uint64_t rs;                 /* the sample's generator */
} logsum;

/* Read path (a searchd query log) into ls; -1 with e set. */
int initlog_read(const char *path, logsum *ls, hk_err *e);
void initlog_free(logsum *ls);
/* The log's table for the config's table t: its own name, or the one name of a one-table log
 * beside a one-table config; -1 none. */
int initlog_table(const logsum *ls, const hk_cluster *cl, int t);
/* ERROR evidence naming host: failed + warned queries. */
long initlog_named(const logsum *ls, const char *host);
/* The fitted shape of table t's agent line j: 0, or -1 (no times: a guess stays). */
int initlog_fit(logsum *ls, const hk_cluster *cl, int t, int j, hk_fit *f);

#endif
