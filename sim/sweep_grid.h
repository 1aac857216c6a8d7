/* sweep_grid: the settings `hasim sweep --grid` varies — parsing the grid text (errors at their
 * column), numbering its points (row-major: the last key varies fastest), and applying one point
 * to a loaded scenario (searchd settings on the cluster and every table, strategy and variant
 * on the run's options). Only settings an operator can change in a config, plus the variant and
 * the hakarma-extension strategies when the grid names them. */
#ifndef SWEEP_GRID_H
#define SWEEP_GRID_H

#include <stdint.h>
#include "hk_scn.h"
#include "sim.h"

#define SWEEP_KEYS_MAX 8
#define SWEEP_VALUES_MAX 64
#define SWEEP_POINTS_MAX 100000

typedef enum sweep_key {
    SK_STRATEGY, SK_VARIANT, SK_KARMA, SK_PING, SK_RETRY, SK_CONNECT, SK_QUERY, SK_RETRY_DELAY,
    SK_N
} sweep_key;

typedef struct sweep_axis {
    sweep_key key;
    char table[64];              /* "goods.ha_strategy": that table only; "" = every table */
    int tix;                     /* its index once bound (sweep_grid_bind), -1 = every table */
    int n;
    char text[SWEEP_VALUES_MAX][32];     /* as written */
    int64_t v[SWEEP_VALUES_MAX];         /* strategy/variant id, us, or a count */
} sweep_axis;

typedef struct sweep_grid {
    int naxes;
    sweep_axis ax[SWEEP_KEYS_MAX];
    long npoints;                /* the grid's points */
    long nrun;                   /* points run: npoints, plus the baseline (index npoints) when
                                    the scenario's own settings are not a grid point */
    long current;                /* the scenario's own settings' point (npoints: the baseline) */
    char base[600];              /* the baseline's label: "as configured (ha_strategy=...)" */
    char overrode[600];          /* what a global ha_strategy overrides: "goods (noerrors), ..." */
} sweep_grid;

/* Parse "key=v1,v2 table.key=..."; on error -1 and msg "column COL: what was expected" (a value
 * given twice is an error). */
int sweep_grid_parse(const char *text, sweep_grid *g, char *msg, size_t n);
/* Bind the grid to the loaded scenario: the tables its keys name (an unknown one: -1, msg),
 * the current settings' point (or a baseline point after the grid), what a global ha_strategy
 * overrides. */
int sweep_grid_bind(sweep_grid *g, const hk_scn *s, int variant, char *msg, size_t n);
/* Point p's settings as a config says them for the dialect of variant (2.2.11 reads no time
 * suffixes: bare seconds and milliseconds for both): "searchd { ha_period_karma = 10 }
 * table goods { ha_strategy = nodeads }"; "" for the baseline. */
void sweep_point_config(const sweep_grid *g, long p, char *buf, size_t n);
const char *sweep_key_name(sweep_key k);
/* The value index of axis a at point p. */
int sweep_point_value(const sweep_grid *g, long p, int a);
/* "ha_strategy=noerrors ha_period_karma=30s" */
void sweep_point_label(const sweep_grid *g, long p, char *buf, size_t n);

/* A scenario's settings, to put back before the next point. */
typedef struct sweep_saved {
    hk_settings set;
    int ntables;
    int64_t *conn, *query;
    int *retry;
    int *strat;                  /* per table: its lines' strategies, line after line */
} sweep_saved;

int sweep_save(const hk_scn *s, sweep_saved *sv);
void sweep_saved_free(sweep_saved *sv);
/* Restore s, then apply point p: cluster and tables get the searchd settings, o the strategy
 * and variant (o->variant keeps the caller's when the grid has none). */
void sweep_apply(const sweep_grid *g, long p, hk_scn *s, const sweep_saved *sv, sim_opts *o);
/* The point a scenario's own settings are (its current configuration), or -1 if the grid does
 * not contain it. */
long sweep_current(const sweep_grid *g, const hk_scn *s, int variant);

#endif
