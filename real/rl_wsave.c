/* rl_wsave: the watch's snapshots and events on disk (see rl_wsave.h). */
#include "rl_wsave.h"

#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hk_csv.h"
#include "hk_file.h"
#include "hk_rundir.h"

int rl_wsave_open(rl_wsave *s, const char *dir, int64_t keep_bytes, double keep_s, hk_err *e)
{
    *s = (rl_wsave){.keep_bytes = keep_bytes, .keep_s = keep_s};
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    return hk_mkdirs(dir, e);
}

static void drop_oldest(rl_wsave *s)
{
    rl_wsnap *o = &s->q[s->head];
    int dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (dfd >= 0) {
        unlinkat(dfd, o->name, 0);
        close(dfd);
    }
    s->bytes -= o->bytes;
    s->head++;
    s->n--;
}

static int push(rl_wsave *s, const char *name, int64_t bytes, double t_s)
{
    if (s->head + s->n == s->cap) {
        if (s->head > 0) {       /* room at the front: slide down */
            memmove(s->q, s->q + s->head, (size_t)s->n * sizeof *s->q);
            s->head = 0;
        } else {
            int cap = s->cap ? 2 * s->cap : 64;
            rl_wsnap *q = realloc(s->q, (size_t)cap * sizeof *q);
            if (!q)
                return -1;
            s->q = q;
            s->cap = cap;
        }
    }
    rl_wsnap *x = &s->q[s->head + s->n++];
    *x = (rl_wsnap){.bytes = bytes, .t_s = t_s};
    snprintf(x->name, sizeof x->name, "%s", name);
    s->bytes += bytes;
    return 0;
}

/* How many of the oldest a snapshot of len bytes taken at t_s will push out. */
static int pushed_out(const rl_wsave *s, size_t len, double t_s)
{
    int64_t bytes = s->bytes + (int64_t)len;
    int n = s->n + 1, k = 0;
    while (n > 1 && ((s->keep_bytes > 0 && bytes > s->keep_bytes) ||
                     (s->keep_s > 0 && t_s - s->q[s->head + k].t_s > s->keep_s))) {
        bytes -= s->q[s->head + k].bytes;
        k++;
        n--;
    }
    return k;
}

int rl_wsave_put(rl_wsave *s, const char *name, const char *text, size_t len, double t_s,
                 hk_err *e)
{
    if (pushed_out(s, len, t_s) > 0) { /* the oldest's file becomes this one */
        rl_wsnap *o = &s->q[s->head];
        s->bytes -= o->bytes;
        s->head++;
        s->n--;
        if (hk_out_reuse(s->dir, o->name, name, text, len, e) < 0)
            return -1;
    } else if (hk_out_write_all(s->dir, name, text, len, e) < 0) {
        return -1;
    }
    if (push(s, name, (int64_t)len, t_s) < 0)
        return hk_err_set(e, s->dir, 0, 0, "out of memory");
    while (s->n > 1 && ((s->keep_bytes > 0 && s->bytes > s->keep_bytes) ||
                        (s->keep_s > 0 && t_s - s->q[s->head].t_s > s->keep_s)))
        drop_oldest(s);
    return 0;
}

void rl_wsave_close(rl_wsave *s)
{
    free(s->q);
    s->q = NULL;
    s->n = s->head = s->cap = 0;
}

/* dir/name created anew (never through a link) and noted in the run's list: a stream, or
 * NULL with e. */
static FILE *create_noted(const char *dir, const char *name, hk_err *e)
{
    int dfd = hk_dir_open(dir, e);
    if (dfd < 0)
        return NULL;
    int fd = hk_create_at(dfd, name);
    close(dfd);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        hk_err_set(e, dir, 0, 0, "%s: cannot be created", name);
        return NULL;
    }
    hk_rundir_note(dir, name);
    return f;
}

FILE *rl_wsave_events_open(const char *dir, hk_err *e)
{
    return create_noted(dir, "events.jsonl", e);
}

int rl_wsave_event(FILE *f, const hk_wevent *ev, const char *master, const char *table,
                   const char *mirror, hk_err *e)
{
    json_t *o = json_pack("{s:f, s:s, s:s, s:s, s:s, s:i, s:s, s:s}", "t", ev->t_s, "event",
                          ev->raised ? "raised" : "cleared", "kind", hk_wkind_name(ev->kind),
                          "master", master, "table", table, "agent", ev->line + 1, "mirror",
                          mirror, "evidence", ev->evidence);
    char *line = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(16))
                   : NULL;
    json_decref(o);
    int bad = !line || fprintf(f, "%s\n", line) < 0 || fflush(f) != 0;
    free(line);
    return bad ? hk_err_set(e, "events.jsonl", 0, 0, "a write failed") : 0;
}

FILE *rl_wsave_windows_open(const char *dir, hk_err *e)
{
    FILE *f = create_noted(dir, "windows.csv", e);
    if (f)
        fputs("t_s,master,table,agent,mirror,attempts,share,weight,answers,error_replies,"
              "query_timeouts,connect_timeouts,refused,other_failures,mean_ms,alive,findings\n",
              f);
    return f;
}

static void findings_cell(FILE *f, unsigned active)
{
    char b[200] = "";
    for (int k = 0; k < HK_W_N; k++)
        if (active & (1u << k))
            snprintf(b + strlen(b), sizeof b - strlen(b), "%s%s", b[0] ? " " : "",
                     hk_wkind_name(k));
    hk_csv_str(f, b, 0);
}

int rl_wsave_windows(FILE *f, const hk_wmaster *m, const char *master, hk_err *e)
{
    for (int li = 0; li < m->nlines; li++) {
        const hk_wline *L = &m->lines[li];
        for (int i = 0; i < L->n; i++) {
            const hk_wmirror *M = &L->m[i];
            double other = 0;
            for (int k = HK_EV_NETWORK_ERROR; k < HK_EV_WARNING; k++)
                other += M->by[k];
            fprintf(f, "%.3f", m->t_s);
            hk_csv_str(f, master, 0);
            hk_csv_str(f, m->cl->tables[L->table].name, 0);
            fprintf(f, ",%d", L->line + 1);
            hk_csv_str(f, m->cl->hosts[M->host].name, 0);
            fprintf(f, ",%.0f,%.4f,%.4f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.3f,%d", M->attempts,
                    M->share, M->prob, M->ok, M->errors, M->by[HK_EV_QUERY_TIMEOUT],
                    M->by[HK_EV_CONNECT_TIMEOUT], M->by[HK_EV_CONNECT_FAILURE], other,
                    M->mean_ms, M->alive);
            findings_cell(f, M->active);
            hk_csv_end(f);
        }
    }
    return fflush(f) != 0 ? hk_err_set(e, "windows.csv", 0, 0, "a write failed") : 0;
}
