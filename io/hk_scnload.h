/* hk_scnload: load a scenario (or a plain manticore.conf) from disk: parse it,
 * follow sim { config = ... }, read empirical(FILE, COLUMN) samples and open
 * a trace(FILE) arrival stream. Relative paths are relative to the file that
 * names them. */
#ifndef HK_SCNLOAD_H
#define HK_SCNLOAD_H

#include "hk_csv.h"
#include "hk_scn.h"

typedef struct hk_trace_src {
    hk_csvr r;
    int col;
    hk_err err;
    int failed;
} hk_trace_src;

typedef struct hk_loaded {
    hk_scn *scn;
    hk_conf *conf, *tables;      /* owned (tables may be NULL) */
    hk_trace_src *trace;         /* owned, NULL unless trace(...) */
    hk_warns warns;
    char *text;                  /* the scenario text, for reports */
} hk_loaded;

int hk_scn_load(const char *path, hk_loaded *out, hk_err *err);
void hk_loaded_free(hk_loaded *l);
/* Re-open the trace at its start (for another replication or strategy). */
int hk_loaded_rewind(hk_loaded *l, hk_err *err);
/* Read a numeric column (milliseconds -> µs samples) for empirical(). */
int hk_load_samples(const char *path, const char *column, double **out, long *n, hk_err *err);

#endif
