/* hareal: the real-network mode's commands (one file each, on the command kit hk_cmd), and
 * the options replay and live share; the work is real/'s (rl_serve, rl_run, rl_cluster).
 *   hareal mirror --listen IP:PORT ...   hareal_mirror.c: a mirror agent real masters accept
 *   hareal replay --config F --trace F   hareal_replay.c: a master replaying a trace or log
 *   hareal live SCENARIO ...             hareal_live.c: a whole cluster, faults for real
 *   hareal live ... --master searchd     hareal_livesd.c: ... with a real searchd as master
 *   hareal proxy --listen --upstream     hareal_proxy.c: a fault proxy before a real agent
 *   hareal watch --master HOST:PORT      hareal_watch.c: running masters followed live */
#ifndef HAREAL_H
#define HAREAL_H

#include "hk_answer.h"
#include "hk_cmd.h"
#include "hk_rundir.h"
#include "hk_plot.h"
#include "hk_scnload.h"
#include "rl_cluster.h"
#include "rl_drive.h"
#include "rl_searchd.h"

/* The options hareal replay and hareal live share (hareal_common.c). */
typedef struct rl_common {
    const char *trace, *out;
    const char *metrics;         /* --metrics IP:PORT, or NULL */
    const char *fail_on;         /* --fail-on's finding kinds, or NULL */
    const char *status;          /* --status FILE: a saved status that says the variant */
    const char *searchd_log;     /* --searchd-log FILE: ... searchd's log that says it */
    int format, force, plot, quiet, no_exec, variant, strategy;
    int out_default;             /* no --out: the default folder, replaced by the next run */
    long long seed;
    int ntmap;
    const char *tmap[RL_TMAP_MAX][2];
    char tmap_buf[RL_TMAP_MAX][256];
    hk_plot_sel sel;
} rl_common;

extern const hk_opt rl_common_opts[];

void rl_common_init(rl_common *c, int variant, long long seed);
/* c->variant decided: --variant, else what --status or --searchd-log says, else fallback (why:
 * fallback_why); said on stderr as who unless quiet. 0, or HK_EXIT_INPUT (said) when the
 * evidence cannot be read. */
int rl_variant(rl_common *c, int fallback, const char *fallback_why, const char *who);
/* rc, or HK_EXIT_FINDING (said on stderr) when rc is 0 and a finding of c->fail_on's kinds
 * was raised. */
int rl_fail_on(const rl_common *c, const char *who, const hk_ans *a, int rc);
/* --plot's pictures of dir, and the plots: line (unless quiet). */
/* A wire run's end: its charts (--plot) while the folder is still held, then the folder
 * finished or emptied (rl_outdir_close); rc, or HK_EXIT_RUN when a chart could not be drawn
 * (said; the folder is finished, its CSV files complete, no chart cut short). */
int rl_close_run(hk_rundir *rd, int rc, const rl_common *c, const char *who);
/* The folder finished when rc is a complete run's (0, 4, a signal's), else emptied: rc, or
 * HK_EXIT_RUN when it cannot be marked finished (said). */
int rl_outdir_close(hk_rundir *rd, int rc);

/* The scenario at path (loaded into L, the caller frees it) and the host its mirror name
 * is, with a behaviour when behave (a mirror plays it; a proxy in front of a real agent does
 * not): 0, or HK_EXIT_INPUT after saying what is wrong as who. */
int rl_scn_mirror(const char *who, const char *path, const char *name, int behave,
                  hk_loaded *L, int *host);

/* What hareal live hands its searchd-mastered run (hareal_livesd.c). */
typedef struct rl_livesd {
    const char *scenario;        /* as the operator named it */
    const char *scn_path;        /* absolute: what hasim is given */
    const char *self;            /* hareal's own path: hasim is beside it */
    const char *out, *text;      /* the run's folder; the scenario's text */
    const rl_searchd *sd;        /* probed: its path and kind */
    int compare, quiet, force, strategy, variant, base_port;
    int64_t duration_us;
    uint64_t seed;
    const char *metrics;         /* IP:PORT serving the drive's /metrics, or NULL */
    hk_trace *trace;             /* the workload, or NULL: the scenario's arrivals or clients */
} rl_livesd;

/* The run, its folder owned from start to end: 0, or an exit code after saying why. */
int rl_live_searchd(rl_cluster *cl, const hk_scn *s, const rl_livesd *o);

int rl_cmd_mirror(int argc, char **argv);
int rl_cmd_replay(int argc, char **argv);
int rl_cmd_live(int argc, char **argv, const char *self);
int rl_cmd_proxy(int argc, char **argv);
int rl_cmd_watch(int argc, char **argv);

#endif
