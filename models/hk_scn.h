/* hk_scn: a scenario — a config's distributed tables plus how each mirror
 * behaves (`mirror host:port {}` / `mirror default {}`), faults on a timeline
 * (`fault host:port {}`), the workload (`workload {}`) and run options
 * (`sim {}`). Parsed from hk_conf values; files named inside (a real config,
 * empirical samples, a trace) are read by the caller, not here. */
#ifndef HK_SCN_H
#define HK_SCN_H

#include <stdint.h>
#include "hk_arrivals.h"
#include "hk_cluster.h"
#include "hk_dist.h"

typedef enum hk_fault_kind {
    HK_FAULT_NONE, HK_FAULT_DOWN, HK_FAULT_HANG, HK_FAULT_SLOW, HK_FAULT_ERRORS,
    HK_FAULT_PARTITION, HK_FAULT_FLAP
} hk_fault_kind;

typedef struct hk_fault {
    int host;                    /* index into cl->hosts */
    int64_t at_us, for_us;       /* for_us < 0: until the end */
    hk_fault_kind kind;
    double x;                    /* slow factor, error probability */
    int64_t period_us;           /* flap: down for the first half of each period */
    int line;
} hk_fault;

typedef struct hk_behave {
    char name[HK_HOST_MAX + 8];  /* "default" or host:port */
    hk_dist *rtt;                /* master<->mirror round trip */
    hk_dist *service;            /* time to execute one query */
    int threads;                 /* workers; 0 = no queueing */
    double errors;               /* probability of an ERROR reply */
    double warnings;             /* probability of a reply with a warning */
    int line;
} hk_behave;

typedef struct hk_workload {
    hk_arrivals arr;
    int64_t duration_us;
    int masters;
    int table;                   /* index into cl->tables; -1 = every table in turn */
} hk_workload;

typedef struct hk_scn {
    char *file;
    hk_cluster *cl;              /* owned */
    int nbehave;
    hk_behave *behave;           /* owned */
    int *host_behave;            /* per host: index into behave */
    int nfaults;
    hk_fault *faults;
    hk_workload wl;
    uint64_t seed;
    int replications;
    int variant;                 /* hk_variant_id */
    int strategy;                /* -1 = as configured; else overrides every line */
    int warnings_count;
} hk_scn;

/* The sim { config = ... } entry, or NULL. */
const hk_entry *hk_scn_config_entry(const hk_conf *scn);
/* Build from the scenario conf; tables come from `tables` (or scn when NULL),
 * and the scenario's own searchd {} keys override the config's. */
int hk_scn_build(const hk_conf *scn, const hk_conf *tables, hk_scn **out, hk_err *err,
                 hk_warns *warns);
void hk_scn_free(hk_scn *s);
/* Fault in force on host at t (HK_FAULT_NONE if none); *x gets its parameter. */
hk_fault_kind hk_scn_fault_at(const hk_scn *s, int host, int64_t t_us, double *x);
const char *hk_fault_name(hk_fault_kind k);
/* The first moment in (from, to] at which host goes down or hangs (a query in flight then never
 * gets its reply); -1 if none. *kind gets HK_FAULT_DOWN or HK_FAULT_HANG. */
int64_t hk_scn_fault_cut(const hk_scn *s, int host, int64_t from, int64_t to, hk_fault_kind *kind);

#endif
