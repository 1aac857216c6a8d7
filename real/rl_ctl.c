/* rl_ctl: a child's control lines and its parent's death (see rl_ctl.h). */
#include "rl_ctl.h"

#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static void on_alloc(uv_handle_t *h, size_t want, uv_buf_t *out)
{
    rl_ctl *c = h->data;
    (void)want;
    *out = uv_buf_init(c->buf + c->len, (unsigned)(sizeof c->buf - c->len - 1));
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    rl_ctl *c = s->data;
    (void)buf;
    if (n < 0) {                 /* the parent is gone */
        c->eof(c->user);
        return;
    }
    c->len += (size_t)n;
    c->buf[c->len] = '\0';
    char *nl;
    while ((nl = strchr(c->buf, '\n'))) {
        *nl = '\0';
        c->line(c->user, c->buf);
        size_t used = (size_t)(nl - c->buf) + 1;
        memmove(c->buf, nl + 1, c->len - used + 1);
        c->len -= used;
    }
    if (c->len >= sizeof c->buf - 1)
        c->len = 0;
}

int rl_ctl_start(rl_ctl *c, uv_loop_t *loop)
{
    c->len = 0;
    if (uv_pipe_init(loop, &c->in, 0) < 0)
        return -1;
    c->in.data = c;
    c->on = 1;
    if (uv_pipe_open(&c->in, 0) < 0) {
        rl_ctl_stop(c);
        return -1;
    }
    return uv_read_start((uv_stream_t *)&c->in, on_alloc, on_read);
}

void rl_ctl_stop(rl_ctl *c)
{
    if (c->on)
        uv_close((uv_handle_t *)&c->in, NULL);
    c->on = 0;
}

void rl_die_with_parent(void)
{
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)     /* the parent died before the call */
        raise(SIGKILL);
}
