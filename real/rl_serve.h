/* rl_serve: one mirror agent served until it is told to stop — SIGINT, SIGTERM or SIGHUP,
 * 'quit' on its control stdin, or EOF there; a controlled mirror dies with its parent, even
 * stopped (the stall fault) and even when the parent is killed outright. */
#ifndef RL_SERVE_H
#define RL_SERVE_H

#include "rl_mirror.h"

/* Serve c with fault f (x its figure) from the start; control: read 'fault KIND' and 'quit'
 * lines on stdin. 0 when stopped, -1 with msg when it cannot listen or run. */
int rl_serve(const rl_mirror_cfg *c, rl_fault f, double x, int control, int quiet, char *msg,
             int n);

#endif
