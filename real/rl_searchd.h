/* rl_searchd: a real searchd (Sphinx 2.2.11 or Manticore) as the master of a live cluster —
 * which one a binary is (its banner), the config written for a scenario's distributed tables
 * with their agents at the live mirrors' addresses, the process started on loopback with
 * --nodetach, watched, and stopped by its PID; a crash or a refusal said with its logs' last
 * lines. */
#ifndef RL_SEARCHD_H
#define RL_SEARCHD_H

#include <netinet/in.h>
#include <stdio.h>
#include <uv.h>
#include "hk_err.h"
#include "hk_scn.h"

typedef enum rl_sd_kind { RL_SD_SPHINX2, RL_SD_MANTICORE } rl_sd_kind;

typedef struct rl_searchd {
    /* the caller's */
    uv_loop_t *loop;
    char path[1024];             /* the binary: a name looked up in PATH, or a path */
    char dir[1024];              /* its config, logs and pid file */
    int ql_port;                 /* its SphinxQL listener on 127.0.0.1 */
    /* found by rl_searchd_probe */
    rl_sd_kind kind;
    char banner[160];            /* "Sphinx 2.2.11-id64-release (95ae9a6)" */
    /* the process: forked with a parent-death signal, so even a `kill -9` of hareal stops it;
     * reaped by a watch timer (libuv reaps only what it spawned) */
    int pid;
    int running, term_sig, exit_code, stop_sent, killed;
    uv_timer_t watch;
    int watch_on;
    int64_t stop_at_ms;          /* SIGKILL after this loop time, once stopping */
    hk_say say;                  /* its logs' last lines when it fails */
} rl_searchd;

/* Run the binary once for its banner: 0 (kind, banner set), or -1 with e saying why (not
 * found, not searchd, a version this does not drive). */
int rl_searchd_probe(rl_searchd *sd, hk_err *e);
/* Write DIR/searchd.conf, start searchd on it, wait (up to 15 s) until its SphinxQL port
 * accepts: 0, or -1 with e saying why (its logs' last lines to sd->say). */
int rl_searchd_start(rl_searchd *sd, const hk_scn *s, int strategy,
                     const struct sockaddr_in *addr, hk_err *e);
/* SIGTERM to its PID (SIGKILL 10 s later if it lingers); the loop then reaps it. */
void rl_searchd_stop(rl_searchd *sd);
/* After the loop: 0 when it ended as asked; else -1 with e saying how it ended (the logs'
 * last lines to sd->say). */
int rl_searchd_verdict(const rl_searchd *sd, int stopped_by_us, hk_err *e);

#endif
