/* hk_status: SHOW AGENT STATUS as real searchd prints it, into a caller's
 * buffer as `mysql -B` shows it (a header row, then key<TAB>value rows).
 * Two layouts: Sphinx 2.2.11 (verified against the real daemon) and
 * Manticore (its code's rows, including the misplaced per-period values it
 * prints today: see ../shared/spec/ha-research.md §2.3). */
#ifndef HK_STATUS_H
#define HK_STATUS_H

#include <stdint.h>
#include "hk_buf.h"
#include "hk_dash.h"
#include "hk_variant.h"

typedef struct hk_status_host {
    const char *name;            /* "host:port" */
    int refs;                    /* agent entries using the host */
    int pinged;                  /* in an HA line (Manticore: non-blackhole) */
    int perspool;                /* has a persistent-connection pool */
    const hk_dash *dash;
} hk_status_host;

typedef struct hk_status_mirror {
    const char *id;              /* "host:port:indexes" */
    double weight;               /* Manticore: percent; Sphinx: the raw WORD */
    int blackhole, persistent;
} hk_status_mirror;

typedef struct hk_status_line {
    int n;
    const hk_status_mirror *m;
} hk_status_line;

/* SHOW AGENT STATUS (global form): status_period_seconds, status_stored_periods, ag_N_... */
void hk_status_global(hk_buf *b, const hk_variant *var, int64_t karma_s, const hk_status_host *h,
                      int n, int64_t now_us);
/* SHOW AGENT <table> STATUS: dstindex_... rows. */
void hk_status_table(hk_buf *b, hk_layout lay, const char *const *locals, int nlocal,
                     const hk_status_line *lines, int nlines);

#endif
