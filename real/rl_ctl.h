/* rl_ctl: a child's side of hareal live — control lines from the parent on stdin, each whole
 * line handed to the child's handler (a line over 255 bytes is dropped), EOF (the parent
 * gone) to its end handler; and the child dying with its parent even when the parent is
 * killed outright. The mirror and the proxy children both use it. */
#ifndef RL_CTL_H
#define RL_CTL_H

#include <stddef.h>
#include <uv.h>

typedef struct rl_ctl {
    void (*line)(void *user, const char *line);  /* the caller's */
    void (*eof)(void *user);
    void *user;
    uv_pipe_t in;                /* the rest is rl_ctl's */
    int on;
    char buf[256];
    size_t len;
} rl_ctl;

/* Read stdin's lines (line, eof and user set): 0, or -1 when stdin is not a pipe. */
int rl_ctl_start(rl_ctl *c, uv_loop_t *loop);
/* Stop reading (again: nothing). */
void rl_ctl_stop(rl_ctl *c);
/* SIGKILL when the parent dies (at once if it already has). */
void rl_die_with_parent(void);

#endif
