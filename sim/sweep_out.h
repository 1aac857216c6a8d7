/* sweep_out: what a sweep found — the rows of its runs (one CSV line per run, written by the
 * run's process into DIR/runs/), their aggregation per grid point (means with 95% confidence
 * intervals), the ranking by the objective, the Pareto set, one recommendation in words, and
 * the files: sweep.csv, report.txt, index.html (a heatmap per pair of swept settings). Everything
 * is computed from the rows' text, so a sweep run in one process, in N, or in shards merged later
 * writes the same bytes. */
#ifndef SWEEP_OUT_H
#define SWEEP_OUT_H

#include <stdio.h>
#include "hk_buf.h"
#include "hk_err.h"
#include "sim_report.h"
#include "sweep_grid.h"

typedef enum sweep_obj { SO_P99, SO_P999, SO_FAILURES, SO_READMIT } sweep_obj;

typedef struct sweep_meta {      /* what every shard of one sweep must share */
    char scenario[1024];
    char grid[4096];
    int replications;
    unsigned long long seed;
    int variant;                 /* the caller's variant (the grid may vary it) */
    int64_t duration_us;
    sweep_obj objective;
    long nrun, current;          /* the grid's bound figures (sweep_grid_bind): a merge needs */
    char base[600], overrode[600]; /* no scenario to rank the shards it is given */
    char version[32];            /* hakarma's, which ran the points */
    int nfiles;                  /* the files the scenario names (config, empirical, trace) */
    struct sweep_file {
        char name[512];          /* as the scenario writes it */
        long long size;
        unsigned long long digest;   /* of its bytes (hk_hash) */
    } files[64];
    unsigned long long digest;   /* of the scenario's text and every field above: a point file
                                    of another sweep, another version, or one whose named file
                                    changed, is refused */
} sweep_meta;

/* One run's row, from its figures (CSV, with its newline), appended to b. */
void sweep_row_put(hk_buf *b, long point, int rep, unsigned long long seed, const sweep_grid *g,
                   const sim_figures *f);
/* The point file's last row: "end,POINT,ROWS,DIGEST,CHECKSUM" (the checksum of the rows above
 * it), appended to b, which holds those rows. */
void sweep_rows_seal(hk_buf *b, long point, int rows, const sweep_meta *m);
/* 1 if dir/runs/POINT.csv is complete and of this sweep (its seal matches), 0 if not. */
int sweep_point_done(const char *dir, long point, const sweep_meta *m);
/* m's digest, from the scenario's text and m's other fields. */
void sweep_meta_digest(sweep_meta *m, const char *scenario_text);
const char *sweep_obj_name(sweep_obj o);
int sweep_obj_find(const char *s);

/* 0 when a and b are of one sweep; else -1 with why saying the first field that differs, and
 * how (a file: its name, size and digest in each; a grid: both texts). */
int sweep_meta_diff(const sweep_meta *a, const sweep_meta *b, char *why, size_t n);
int sweep_meta_write(const char *dir, const sweep_meta *m, hk_err *err);
int sweep_meta_read(const char *dir, sweep_meta *m, hk_err *err);

/* The bound figures of g into m, and back (a merge's grid, parsed from m->grid). */
void sweep_meta_bind(sweep_meta *m, const sweep_grid *g);
void sweep_grid_from_meta(sweep_grid *g, const sweep_meta *m);
/* Read DIR/runs/P.csv for every point run (from any of the dirs), write sweep.csv, report.txt
 * and index.html into out, the report also to show (NULL: not shown). 0; SWEEP_EPOINTS with err
 * when a point file is missing, extra, given twice or damaged (bad input: nothing written);
 * -1 with err when writing failed. */
enum { SWEEP_EPOINTS = -3 };
int sweep_finish(const char *const *dirs, int ndirs, const char *out, const sweep_meta *m,
                 const sweep_grid *g, FILE *show, hk_err *err);

#endif
