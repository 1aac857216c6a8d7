/* hk_scn: a scenario — a config's distributed tables (read in the dialect of
 * the variant being run) plus how each mirror behaves (`mirror host:port {}` /
 * `mirror default {}`), faults on a timeline (`fault host:port {}`, hk_fault.c),
 * the workload (`workload {}`: open-loop arrivals, or closed-loop clients) and
 * run options (`sim {}`). Parsed from hk_conf values; files named inside (a
 * real config, empirical samples, a trace) are read by the caller, not here.
 * Unknown sections and keys are errors that name the nearest known one. */
#ifndef HK_SCN_H
#define HK_SCN_H

#include <stdint.h>
#include "hk_arrivals.h"
#include "hk_cluster.h"
#include "hk_dist.h"
#include "hk_expect.h"

typedef enum hk_fault_kind {
    HK_FAULT_NONE, HK_FAULT_DOWN,
    HK_FAULT_STALL,              /* the process is stopped (SIGSTOP, a long GC or swap pause):
                                  * connections queue in the kernel, nothing is answered, pings
                                  * included */
    HK_FAULT_SLOW, HK_FAULT_ERRORS, HK_FAULT_PARTITION, HK_FAULT_FLAP,
    HK_FAULT_STUCK               /* query threads are stuck: the mirror says hello and answers
                                  * pings, but no query gets a reply */
} hk_fault_kind;

/* flap(P)'s shortest period: each half must outlast a connect and a ping on a loopback proxy
 * (below it the proxy's timers merge the halves into one long outage). */
#define HK_FLAP_MIN_US 2000

typedef struct hk_fault {
    int host;                    /* index into cl->hosts */
    int64_t at_us, for_us;       /* for_us < 0: until the end */
    hk_fault_kind kind;
    double x;                    /* slow factor, error probability */
    int64_t period_us;           /* flap: down for the first half of each period */
    int line, col;
} hk_fault;

typedef struct hk_behave {
    char name[HK_HOST_MAX + 16]; /* "default" or host:port */
    hk_dist *rtt;                /* master<->mirror round trip */
    hk_dist *service;            /* time to execute one query */
    int threads;                 /* workers; 0 = no queueing */
    double errors;               /* probability of an ERROR reply */
    double warnings;             /* probability of a reply with a warning */
    double refuse;               /* probability that a connect is refused */
    int line;
} hk_behave;

#define HK_CLIENTS_MAX 1000000
#define HK_TMAP_MAX 64

typedef struct hk_workload {
    hk_arrivals arr;             /* open loop (clients == 0) */
    int clients;                 /* closed loop: each client waits for its answer */
    hk_dist *think;              /* closed loop: from an answer to that client's next query */
    int64_t duration_us;
    int masters;
    int table;                   /* index into cl->tables; -1 = every table in turn */
    int table_set;               /* `table =` given: it overrides a trace's own tables */
    int ntmap;                   /* table_map: a trace's table name -> a config table */
    char tmap[HK_TMAP_MAX][2][128];
} hk_workload;

#define HK_START_TRACE (-1)      /* sim { start = trace }: the trace's first timestamp */

typedef struct hk_scn {
    char *file;
    hk_cluster *cl;              /* owned */
    int nbehave;
    hk_behave *behave;           /* owned */
    int *host_behave;            /* per host: index into behave; -1: none was written (a real
                                    agent's, under hareal live --agents) */
    int nfaults;
    hk_fault *faults;
    hk_workload wl;
    uint64_t seed;
    int64_t start_us;            /* simulated time 0 in µs since the epoch (karma blocks are
                                    numbered from the epoch, as searchd numbers them) */
    int start_given;             /* sim { start = } was written */
    int64_t started_us;          /* sim { started = }: when the master (searchd) loaded its
                                    config, epoch µs: its lines' first weight recomputation
                                    waits more than floor(K/2) s after it */
    int started_given;           /* else the master starts with the run */
    int replications;
    int variant;                 /* hk_variant_id */
    int pool_rule;               /* sim { pool = }: hk_pool_rule; -1 = the variant's */
    int pool_close_on_fatal;     /* sim { pool_close_on_fatal = 1 }: Manticore PR #4748 */
    int ports;                   /* sim { ports = }: ephemeral ports to one address (28,232) */
    int time_wait_s;             /* sim { time_wait = }: TIME_WAIT (60 s) */
    double time_wait_share;      /* sim { time_wait_share = }: of a master's closed connections,
                                    the share whose TIME_WAIT is the master's (the side that
                                    closes first holds it): 2.2.11 over 2.2.11, measured 0.23 */
    int strategy;                /* -1 = as configured; else overrides every line */
    int warnings_count;
    int nclaims;
    hk_claim *claims;            /* the expect section's (owned) */
} hk_scn;

/* The sim { config = ... } entry, or NULL. */
const hk_entry *hk_scn_config_entry(const hk_conf *scn);
/* The variant named in sim { variant = }, or the default; -1 if it names none. */
int hk_scn_variant_of(const hk_conf *scn);
/* The config dialect a variant's searchd reads. */
hk_dialect hk_dialect_of(int variant);
/* Build from the scenario conf; tables come from `tables` (or scn when NULL),
 * and the scenario's own searchd {} keys override the config's. */
/* Every section of scn is a scenario's or a config's, every section of tables (when not NULL
 * and not scn) a config's; -1 naming the nearest known type otherwise. */
int hk_scn_check_sections(const hk_conf *scn, const hk_conf *tables, hk_err *err);
int hk_scn_build(const hk_conf *scn, const hk_conf *tables, hk_dialect d, hk_scn **out,
                 hk_err *err, hk_warns *warns);
/* Host h has a behaviour (a mirror section of its own, or mirror default): 0; else -1 with
 * the agent line's file:line:column and what to write. hk_scn_build leaves that to its
 * caller: a simulation needs every host's, a live run only those it plays itself. */
int hk_scn_behaviour_of(const hk_scn *s, int h, hk_err *err);
/* Every host has one: 0, or the first that has not (-1, err). */
int hk_scn_check_behaviour(const hk_scn *s, hk_err *err);
void hk_scn_free(hk_scn *s);
/* The config table a trace's table name stands for (table_map applied); -1 if none. */
int hk_scn_table_of(const hk_scn *s, const char *name);

/* hk_fault.c: reading `fault` sections and the timeline they make. */
int hk_fault_read(const hk_conf *c, const hk_section *sec, int host, hk_fault *f, hk_err *err);
/* Fault in force on host at t (HK_FAULT_NONE if none); *x gets its parameter. */
hk_fault_kind hk_scn_fault_at(const hk_scn *s, int host, int64_t t_us, double *x);
/* When the fault of kind k in force on host at t ends (µs, the scenario's clock); -1 when it
 * never does or none is. */
int64_t hk_scn_fault_end(const hk_scn *s, int host, int64_t t_us, hk_fault_kind k);
const char *hk_fault_name(hk_fault_kind k);
/* A fault during which the mirror answers nothing (down, stall, stuck, partition, flap). */
int hk_fault_is_outage(hk_fault_kind k);
/* The first moment in (from, to] at which host goes down, stalls or gets stuck (a query in
 * flight then never gets its reply); -1 if none. *kind gets HK_FAULT_DOWN, or HK_FAULT_STALL for
 * the two that leave the connection open. */
int64_t hk_scn_fault_cut(const hk_scn *s, int host, int64_t from, int64_t to, hk_fault_kind *kind);
/* Host goes down (a down fault, or a flap's down half) at some moment in (from, to]: its
 * process is gone, and with it every connection it held open. */
int hk_scn_down_in(const hk_scn *s, int host, int64_t from, int64_t to);

#endif
