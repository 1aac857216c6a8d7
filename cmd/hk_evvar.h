/* hk_evvar: which searchd the evidence says a master is — the variant hasim init, hareal
 * replay and hareal live run — and why, from a saved SHOW STATUS / SHOW AGENT STATUS (its
 * version row, else its layout) or searchd's own log (Manticore writes "starting daemon version
 * '…'" and "listening on … for mysql"; Sphinx 2.2.11 neither). Also the one reader of a saved
 * status in any form. */
#ifndef HK_EVVAR_H
#define HK_EVVAR_H

#include <stddef.h>
#include "hk_err.h"
#include "hk_statread.h"

#define HK_EVVAR_WHY 240

/* The variant st says, its reason into why; -1 when it says nothing (no version row, no hosts
 * or no layout told). */
int hk_evvar_status(const hk_status_file *st, char *why, size_t n);
/* The variant searchd's log at path says, its reason into why; -1 when it says nothing (no
 * start in it); -2 with e when it cannot be read. */
int hk_evvar_searchd_log(const char *path, char *why, size_t n, hk_err *e);

/* The variant to run: given (>= 0: --variant, "as --variant says"), else what st (may be NULL)
 * says, else what searchd's log at searchd_log (may be NULL) says, else fallback for
 * fallback_why; its reason into why. The variant, or -1 with e when the log cannot be read. */
int hk_evvar_decide(int given, const hk_status_file *st, const char *searchd_log, int fallback,
                    const char *fallback_why, char *why, size_t n, hk_err *e);

/* A saved status in any form: the mysql client's (-B, -t, -E, -s -N), or Manticore's HTTP JSON
 * (turned into its rows first; then line N is data row N). *buf (read by the caller, owned) may
 * be replaced. 0, or -1 with e at file:line:column. */
int hk_evvar_read_status(const char *path, char **buf, size_t *len, hk_status_file *st, hk_err *e);
/* Read and parse the status at path (st to free by the caller): 0, or -1 with e. */
int hk_evvar_load_status(const char *path, hk_status_file *st, hk_err *e);

#endif
