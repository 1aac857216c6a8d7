/* hk_scnload: load a scenario (or a plain manticore.conf) from disk: parse it
 * (running a `#!` config as Manticore does), follow sim { config = ... },
 * build the scenario in the dialect of each variant that runs it, read
 * empirical(FILE, COLUMN) samples and stream a trace(FILE) of arrivals — a
 * CSV or a searchd query log (sphinxql or plain), with epoch timestamps kept.
 * Relative paths are relative to the file that names them. */
#ifndef HK_SCNLOAD_H
#define HK_SCNLOAD_H

#include "hk_scn.h"
#include "hk_trace.h"

/* A trace as an arrival source for the simulator. */
typedef struct hk_trace_src {
    hk_trace tr;
    int open;
    const hk_scn *scn;           /* tables and table_map for the trace's table names */
    int64_t start_us;            /* simulated time 0 (epoch µs) */
    int64_t end_us;              /* arrivals from here on are not read */
    uint64_t before_start, unknown;  /* arrivals dropped: before the start; unknown tables */
    hk_err err;
    int failed;
} hk_trace_src;

typedef struct hk_loaded {
    char path[1024];
    hk_conf *conf, *tables;      /* owned (tables may be NULL) */
    char *text;                  /* the scenario text, for reports */
    hk_scn *scn;                 /* the scenario in its own variant's dialect */
    hk_scn *by_dialect[2];       /* owned; built on demand */
    hk_cluster *cl;              /* owned: the tables alone (hk_tables_load), else NULL */
    hk_warns warns;              /* of the scenario's own dialect */
    hk_trace_src *trace;         /* owned, NULL unless trace(...) */
    int exec_config;             /* run `#!` configs */
    int behave_optional;         /* a mirror may have no behaviour (hk_scn_load_live) */
    int nran;                    /* configs that were run (`#!`), to tell the user */
    char ran[2][1024];
} hk_loaded;

/* Load path. exec: run a config whose first line is `#!` (Manticore's behaviour) and read its
 * output; 0 refuses such a config. */
int hk_scn_load(const char *path, int exec, hk_loaded *out, hk_err *err);
/* The same for a live run, some of whose mirrors may be real agents: a mirror without a
 * behaviour is not refused here; the caller asks hk_scn_behaviour_of for those it plays. */
int hk_scn_load_live(const char *path, int exec, hk_loaded *out, hk_err *err);
/* The tables alone of a config or scenario, for a command that needs no workload (replay,
 * init): path (and the config it names) read as variant's searchd reads it into out->cl
 * (out->scn stays NULL), refused when it serves no distributed table (the error says why the
 * first was refused). */
int hk_tables_load(const char *path, int exec, int variant, hk_loaded *out, hk_err *err);
void hk_loaded_free(hk_loaded *l);

/* A file a scenario names: sim { config = FILE }, empirical(FILE, COLUMN), trace(FILE). */
typedef struct hk_named {
    char name[512];              /* as the scenario writes it */
    char path[1024];             /* resolved against the scenario's folder */
    const char *what;            /* "config", "empirical" or "trace" */
} hk_named;
#define HK_NAMED_MAX 64
/* The files l's scenario names, each once, in a fixed order (config, then the mirrors'
 * empirical files, the think time's, the trace): their count (at most max). */
int hk_loaded_files(const hk_loaded *l, hk_named *out, int max);
/* Each `input NAME { size = N  digest = fnv1a64:HEX  first = T  last = T }` section (written by
 * hasim init) against the file NAME the scenario reads: 0, or -1 with err at the section naming
 * the file and what changed (a rotated log, a rewritten config). */
int hk_loaded_check_inputs(const hk_loaded *l, hk_err *err);
/* The scenario as the variant's searchd reads it (built once per dialect); NULL with err set.
 * *warns (when not NULL) gets the warnings of a dialect built now. */
hk_scn *hk_loaded_scn(hk_loaded *l, int variant, hk_warns *warns, hk_err *err);
/* (Re-)open the trace of scn at its start (for another run). Sets scn's start when it is
 * `trace` or when the trace holds epoch timestamps and no start was given. */
int hk_loaded_rewind(hk_loaded *l, hk_scn *scn, int64_t duration_us, hk_err *err);
/* Read a numeric column (milliseconds -> µs samples) for empirical(). A hareal queries.csv
 * (a `status` column) or mirror log (an `outcome` column) gives its successful rows only. */
int hk_load_samples(const char *path, const char *column, double **out, long *n, hk_err *err);
/* Read a config file the way searchd does: a `#!` first line runs it (exec != 0) and its
 * output is the config. */
int hk_config_read(const char *path, int exec, char **text, size_t *len, int *ran, hk_err *err);

#endif
