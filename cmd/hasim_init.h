/* hasim_init: what `hasim init` gathers from a query log (hasim_initlog.c) for the scenario it
 * writes (hasim_init.c): the searches and their span, the table names, the ERROR evidence
 * (error= and warning= comments, by the agent they name) and each agent line's times
 * (agents=(...)), kept as a bounded sample per line for the latency fit. */
#ifndef HASIM_INIT_H
#define HASIM_INIT_H

#include <stdint.h>
#include <stdio.h>
#include "hk_cluster.h"
#include "hk_err.h"
#include "hk_calib.h"
#include "hk_fit.h"
#include "hk_fitmix.h"
#include "hk_incident.h"
#include "hk_statread.h"

#define LOG_TABLES 16
#define LOG_LINES 16             /* agent lines of a table whose times are kept */
#define LOG_SAMPLES 20000        /* times kept per line (a uniform sample of them all) */
#define LOG_HOSTS 256            /* agents named by error= / warning= */

typedef struct logline { double *ms; long n, seen; } logline;
#define LOG_BINS 1024            /* time bins of the log for ERROR bursts (1 s, merged) */

typedef struct loghost {
    char name[128];
    long failed, warned, in_fault;
    uint32_t *ebin;              /* [LOG_BINS] errors naming it per bin (NULL: none yet) */
} loghost;

typedef struct logsum {
    long not_search, garbage;    /* entries that are no search; lines that are no entry */
    long batched;                /* searches of a multi-query batch after its first */
    long n;
    long unfitted;               /* searches whose times fell in an incident's fault: not
                                    fitted (a faulted mirror's times are no mirror's shape) */
    int64_t first_us, last_us;
    int ntables;
    char tables[LOG_TABLES][128];
    long searches[LOG_TABLES];   /* per table name */
    uint32_t *qbin[LOG_TABLES];  /* [LOG_BINS] its searches per bin (NULL: none yet) */
    int64_t bin_us;              /* the bins' width (0: none yet) */
    logline line[LOG_TABLES][LOG_LINES];
    long failed, warned;         /* queries with error= / warning= */
    long unnamed;                /* ... whose text names no agent */
    long in_fault;               /* ... naming a host in a fault of the incident (not counted
                                    as its error rate: the fault reproduces them) */
    const hk_incident *inc;      /* the series' incident, or NULL */
    const hk_cluster *cl;        /* its hosts */
    int ntmap;                   /* --table-map LOG=CONFIG entries (borrowed) */
    const char *const *tmap;
    int nhosts;
    loghost hosts[LOG_HOSTS];
    uint64_t rs;                 /* the sample's generator */
} logsum;

/* Read path (a searchd query log) into ls; -1 with e set. With an incident (inc, its cluster
 * cl), ERROR evidence naming a host while it was in a fault there is kept apart. */
int initlog_read(const char *path, const hk_incident *inc, const hk_cluster *cl, logsum *ls,
                 hk_err *e);
void initlog_free(logsum *ls);

/* hasim_initburst.c: ERROR bursts, bounded in time. */
typedef struct initburst {
    double from_s, to_s;         /* seconds after the log's first entry */
    double errors, attempts;     /* named errors, and its attempts then (share x searches) */
} initburst;
void initburst_query(logsum *ls, int table_k, int64_t t_us);
void initburst_error(logsum *ls, int host, int64_t t_us);
void initburst_free(logsum *ls);
/* The bursts of host's ERROR replies on log table k (its share of the line's answered
 * attempts; windows of a karma period, 5 s at least): their count (at most max), *rest_p the
 * rate outside them; 0 with *rest_p < 0 when its errors are a whole-run rate (no burst, or
 * bursts over most of the run). */
int initburst_find(const logsum *ls, int k, const char *host, double share, double karma_s,
                   initburst *out, int max, double *rest_p);
/* The log's table for the config's table t: its own name, or a name --table-map maps to it;
 * -1 none. */
int initlog_table(const logsum *ls, const hk_cluster *cl, int t);
/* The config table --table-map names for the log's table (NULL: none). */
const char *initlog_mapped(const logsum *ls, const char *log_table);
/* How many of the log's table names the config serves (by name or --table-map); the others,
 * comma-separated, in unserved. */
int initlog_tables_served(const logsum *ls, const hk_cluster *cl, char *unserved, size_t n);
/* ERROR evidence naming host: failed + warned queries. */
long initlog_named(const logsum *ls, const char *host);
/* The fitted shape of table t's agent line j: 0, or -1 (no times: a guess stays). */
int initlog_fit(logsum *ls, const hk_cluster *cl, int t, int j, hk_fit *f);
/* The same times as the mixture of the line's mirrors whose k, shares and means m holds (see
 * hk_fitmix.h): 0, or -1 (no times, or no mixture: the line's own fit stays). */
int initlog_fitmix(const logsum *ls, const hk_cluster *cl, int t, int j, hk_fitmix *m);

/* The last time searchd started (its log's "accepting connections") at or before before_s:
 * 0 and *started_s (seconds since the epoch), or -1 with e naming the file. */
int initstart_read(const char *path, double before_s, double *started_s, hk_err *e);

/* A series of snapshots (--status with a folder or several files). */
typedef struct initseries {
    int n, cap;
    char **path;                 /* owned */
    hk_status_file *st;          /* per file */
    hk_snap *snap;               /* sorted by the time each name says */
    hk_incident inc;
} initseries;

/* Expand paths (folders: their files in name order), read each snapshot with its time. */
int initseries_read(const char *const *paths, int n, initseries *s, hk_err *e);
/* The timeline against the config's hosts. */
int initseries_build(initseries *s, const hk_cluster *cl, hk_err *e);
void initseries_free(initseries *s);
/* Into the scenario: the timeline as comments; the faults (times from t0, the run's start, the
 * run run_s long). On stdout: what was found. */
void initseries_timeline(FILE *o, const initseries *s, const hk_cluster *cl, double t0);
void initseries_faults(FILE *o, const initseries *s, const hk_cluster *cl, double t0,
                       double run_s);
void initseries_say(FILE *o, const initseries *s, const hk_cluster *cl, double t0, double run_s);
/* Each calibrated host's source: the healthy windows it came from. */
void initseries_sources(const initseries *s, const hk_cluster *cl, hk_calib_host *c);

#endif
