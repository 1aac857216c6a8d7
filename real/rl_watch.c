/* rl_watch: masters followed over SphinxQL, their snapshots kept and read (see rl_watch.h). */
#include "rl_watch.h"

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "hk_conf.h"
#include "hk_file.h"
#include "hk_rundir.h"
#include "rl_addr.h"
#include "rl_sql.h"
#include "rl_wsave.h"

struct rl_wmaster {
    rl_watch *w;
    int i;
    rl_sql *c;
    uv_timer_t poll, guard;
    int asked_status;            /* SHOW STATUS answered on this connection */
    int busy, up, said_down, ready;
    int behind;                  /* the clock went back: snapshots skipped until it passes */
    double backoff_s;
    char version[96];
    hk_cluster *own;             /* the lines made from its first status (no --config) */
    const hk_cluster *cl;
    rl_wsave save;               /* its snapshots on disk */
    hk_statrd *rd;               /* its snapshots read as the rows come (one order of keys) */
    uint64_t snaps;
};

static void HK_PRINTF(2, 3) say(rl_watch *w, const char *fmt, ...)
{
    char line[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (w->cfg->say)
        w->cfg->say(w->cfg->user, line);
}

static double now_s(void)
{
    uv_timeval64_t tv;
    uv_gettimeofday(&tv);
    return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

static void stop(rl_watch *w);
static void ask(rl_wmaster *m);
static void poll_cb(uv_timer_t *t);

/* ---- a master that does not answer -------------------------------------------- */

static void lost(rl_wmaster *m, const char *why)
{
    rl_watch *w = m->w;
    if (!m->said_down)
        say(w, "master %s: %s; retrying (backoff from 1 s to %.0f s)", w->cfg->names[m->i], why,
            RL_WATCH_BACKOFF_MAX_S);
    m->said_down = 1;
    m->up = 0;
    m->busy = 0;
    m->asked_status = 0;
    uv_timer_stop(&m->guard);
    rl_sql *c = m->c;
    m->c = NULL;                 /* before closing: its callback then finds it stale */
    if (c)
        rl_sql_close(c);
    if (w->stopping)
        return;
    uint64_t ms = (uint64_t)(m->backoff_s * 1000);
    m->backoff_s = fmin(m->backoff_s * 2, RL_WATCH_BACKOFF_MAX_S);
    uv_timer_start(&m->poll, poll_cb, ms, 0);
}

static void guard_cb(uv_timer_t *t)
{
    rl_wmaster *m = t->data;
    char why[80];
    snprintf(why, sizeof why, "no answer in %.0f s (it stalls)", RL_WATCH_STALL_S);
    lost(m, why);
}

/* ---- the first status: the lines, the variant, the period ----------------------- */

/* Every host of st as one line of table '*' (no --config to name the tables). */
static int lines_of(const hk_status_file *st, hk_cluster **out, hk_err *e)
{
    hk_buf b;
    hk_buf_init(&b);
    hk_buf_printf(&b, "index all\n{\n    type = distributed\n    agent = ");
    int n = 0;
    for (int k = 0; k < st->nhosts; k++)
        if (!st->h[k].by_agent && strchr(st->h[k].name, ':')) {
            hk_buf_printf(&b, "%s%s", n ? "|" : "", st->h[k].name);
            n++;
        }
    hk_buf_printf(&b, ":all\n}\n");
    if (!n || b.oom) {
        hk_buf_free(&b);
        return hk_err_set(e, "SHOW AGENT STATUS", 0, 0, n ? "out of memory"
                          : "no host:port among its hosts to follow");
    }
    hk_conf *c = NULL;
    int rc = hk_conf_parse(b.s, b.len, "SHOW AGENT STATUS", &c, e);
    if (rc == 0)
        rc = hk_cluster_from_conf(c, NULL, HK_DIALECT_SPHINX2, out, e, NULL);
    hk_conf_free(c);
    hk_buf_free(&b);
    return rc;
}

static int first_status(rl_wmaster *m, hk_status_file *st)
{
    rl_watch *w = m->w;
    const rl_watch_cfg *c = w->cfg;
    hk_err e;
    char why[240] = "as --variant says";
    int v = c->variant;
    snprintf(st->version, sizeof st->version, "%s", m->version);
    if (v < 0 && c->variant_of)
        v = c->variant_of(st, why, sizeof why);
    if (v < 0) {
        v = HK_VAR_MANTICORE;
        snprintf(why, sizeof why, "nothing tells (no version, no layout): Manticore assumed");
    }
    m->cl = c->cl;
    if (!m->cl && lines_of(st, &m->own, &e) < 0) {
        lost(m, e.msg);
        return -1;
    }
    if (!m->cl)
        m->cl = m->own;
    double period = c->period_s > 0 ? c->period_s
                  : st->period_s > 0 ? (double)st->period_s : (double)m->cl->set.karma_s;
    if (hk_watch_master(w->w, m->i, c->names[m->i], m->cl, hk_variant_get(v), period, &e) < 0) {
        w->err = e;
        w->broken = 1;
        return -1;
    }
    int lines = 0;
    for (int t = 0; t < m->cl->ntables; t++)
        lines += m->cl->tables[t].nlines;
    say(w, "master %s: %s%s%s, the %s variant (%s); windows of %.0f s (%s); %d hosts, %d agent "
        "line%s%s; weights are reconstructed from its windows (searchd prints none)%s",
        c->names[m->i], m->version[0] ? "version " : "no version row in SHOW STATUS",
        m->version,
        st->layout == HK_LAYOUT_SPHINX2 ? " (Sphinx 2.2.11's layout)" : " (Manticore's layout)",
        hk_variant_get(v)->name, why, period,
        c->period_s > 0 ? "given" : st->period_s > 0 ? "its status_period_seconds"
                                                       : "the config's ha_period_karma",
        m->cl->nhosts, lines, lines == 1 ? "" : "s",
        c->cl ? "" : " (no --config: its hosts taken as one line)",
        st->layout == HK_LAYOUT_MANTICORE
            ? "; Manticore's windows misprint query_timeouts (its connects no outcome accounts "
              "for are counted as them), divide connect_failures and network_errors by 10, and "
              "never sum query time"
            : "; 2.2.11 records no ERROR reply: its connects no outcome accounts for are counted "
              "as them");
    m->ready = 1;
    return 0;
}

/* ---- events ---------------------------------------------------------------------- */

static void event_out(rl_watch *w, const hk_wevent *ev)
{
    const hk_wmaster *wm = &w->w->m[ev->master < 0 ? 0 : ev->master];
    const hk_table *t = &wm->cl->tables[ev->table];
    const hk_line_conf *lc = ev->line >= 0 && ev->line < t->nlines ? &t->lines[ev->line] : NULL;
    const char *table = t->name;
    const char *mirror = lc && ev->mirror >= 0 && ev->mirror < lc->a.n
                             ? wm->cl->hosts[lc->host[ev->mirror]].name : "";
    const char *master = ev->master < 0 ? "*" : w->cfg->names[ev->master];
    if (rl_wsave_event(w->events, ev, master, table, mirror, &w->err) < 0)
        w->broken = 1;
    w->nevents++;
    time_t s = (time_t)ev->t_s;
    struct tm tm;
    char at[32];
    strftime(at, sizeof at, "%H:%M:%S", gmtime_r(&s, &tm));
    say(w, "%s %s %s: %s", at, ev->raised ? "raised" : "cleared", hk_wkind_name(ev->kind),
        ev->evidence);
    if (ev->raised && (w->cfg->fail_on & (1u << ev->kind)) && w->failed_kind < 0)
        w->failed_kind = ev->kind;
}

/* ---- SHOW AGENT STATUS ------------------------------------------------------------ */

/* When to ask next: just after the next block of k seconds begins (blocks from the epoch), so
 * each 1-period window holds the whole block before and a little of the new one. Snapshots
 * at another phase miss what falls in the second half of a block (the window then holds only
 * the newest block): a stuck mirror's query timeouts can go unseen. */
static double next_poll(double k, double t)
{
    double lead = fmin(0.1 * k + 0.1, 0.4 * k);
    return (floor(t / k) + 1) * k + lead;
}

static void on_agent_status(rl_sql *c, void *ctx, const rl_sql_res *r)
{
    rl_wmaster *m = ctx;
    rl_watch *w = m->w;
    if (c != m->c)
        return;                  /* a connection already given up */
    m->busy = 0;
    uv_timer_stop(&m->guard);
    if (r->status != RL_SQL_OK) {
        lost(m, r->msg);
        return;
    }
    double t = now_s();
    hk_status_file st;
    hk_err e;
    char name[64];
    snprintf(name, sizeof name, "status.%.6f.tsv", t);
    size_t len = strlen(r->tsv);
    if (hk_statrd_end(m->rd, r->tsv, len, &st, &e) < 0) {
        char why[400];
        snprintf(why, sizeof why, "answered what is not a SHOW AGENT STATUS (%s)", e.msg);
        lost(m, why);
        return;
    }
    if (m->said_down)
        say(w, "master %s answers again", w->cfg->names[m->i]);
    m->said_down = 0;
    m->up = 1;
    m->backoff_s = 1;
    double last = w->w->m[m->i].t_s;
    if (m->ready && t <= last) { /* the clock was set back: nothing is judged or kept */
        if (!m->behind)
            say(w, "master %s: the clock went back %.3f s (to %.3f); its snapshots are skipped "
                "until it passes the last one's time", w->cfg->names[m->i], last - t, t);
        m->behind = 1;
        hk_status_file_free(&st);
        double again = next_poll(w->w->m[m->i].period_s, t) - t;
        uv_timer_start(&m->poll, poll_cb, (uint64_t)(again * 1000), 0);
        return;
    }
    if (m->behind)
        say(w, "master %s: the clock is past the last snapshot again", w->cfg->names[m->i]);
    m->behind = 0;
    if (!m->ready && first_status(m, &st) < 0) {
        hk_status_file_free(&st);
        if (w->broken)
            stop(w);
        return;
    }
    if (rl_wsave_put(&m->save, name, r->tsv, len, t, &e) < 0) {
        w->err = e;
        w->broken = 1;
    }
    m->snaps++;
    w->ev.n = 0;
    if (hk_watch_feed(w->w, m->i, t, &st, &w->ev, &e) < 0) {
        w->err = e;
        w->broken = 1;
    }
    hk_status_file_free(&st);
    if (w->windows && !w->broken &&
        rl_wsave_windows(w->windows, &w->w->m[m->i], w->cfg->names[m->i], &e) < 0) {
        w->err = e;
        w->broken = 1;
    }
    for (int k = 0; k < w->ev.n; k++)
        event_out(w, &w->ev.e[k]);
    if (w->broken || w->failed_kind >= 0) {
        stop(w);
        return;
    }
    double next = next_poll(w->w->m[m->i].period_s, now_s()) - now_s();
    uv_timer_start(&m->poll, poll_cb, next > 0 ? (uint64_t)(next * 1000) : 0, 0);
}

static void on_show_status(rl_sql *c, void *ctx, const rl_sql_res *r)
{
    rl_wmaster *m = ctx;
    if (c != m->c)
        return;
    m->busy = 0;
    uv_timer_stop(&m->guard);
    if (r->status != RL_SQL_OK) {
        lost(m, r->msg);
        return;
    }
    char v[96] = "";
    const char *p = strstr(r->tsv, "version\t");
    if (p && (p == r->tsv || p[-1] == '\n'))
        snprintf(v, sizeof v, "%.*s", (int)strcspn(p + 8, "\n"), p + 8);
    if (m->ready && strcmp(v, m->version))
        say(m->w, "master %s: its version is now '%s' (was '%s'); its variant is kept",
            m->w->cfg->names[m->i], v, m->version);
    snprintf(m->version, sizeof m->version, "%s", v);
    m->asked_status = 1;
    ask(m);
}

static void on_row(void *ctx, const char *line, size_t len)
{
    rl_wmaster *m = ctx;
    hk_statrd_line(m->rd, line, len);
}

/* The next question on m's connection (opened first when it has none). */
static void ask(rl_wmaster *m)
{
    rl_watch *w = m->w;
    if (w->stopping || m->busy)
        return;
    if (m->c && !rl_sql_usable(m->c)) {
        lost(m, "the connection broke");
        return;
    }
    if (!m->c && !(m->c = rl_sql_new(&w->loop, &w->cfg->addrs[m->i]))) {
        w->broken = 1;
        hk_err_set(&w->err, w->cfg->names[m->i], 0, 0, "out of memory");
        stop(w);
        return;
    }
    if (m->asked_status)
        hk_statrd_begin(m->rd, "SHOW AGENT STATUS");
    rl_sql_rows_to(m->c, m->asked_status ? on_row : NULL, m);
    int rc = m->asked_status ? rl_sql_query(m->c, "SHOW AGENT STATUS", 1, on_agent_status, m)
                             : rl_sql_query(m->c, "SHOW STATUS", 1, on_show_status, m);
    if (rc < 0) {
        lost(m, "the connection broke");
        return;
    }
    m->busy = 1;
    uv_timer_start(&m->guard, guard_cb, (uint64_t)(RL_WATCH_STALL_S * 1000), 0);
}

static void poll_cb(uv_timer_t *t) { ask(t->data); }

/* ---- start and end ----------------------------------------------------------------- */

static void stop(rl_watch *w)
{
    if (w->stopping)
        return;
    w->stopping = 1;
    for (int i = 0; i < w->cfg->nmasters; i++) {
        rl_wmaster *m = &w->m[i];
        uv_timer_stop(&m->poll);
        uv_timer_stop(&m->guard);
        rl_sql *c = m->c;
        m->c = NULL;
        if (c)
            rl_sql_close(c);
    }
    uv_timer_stop(&w->end_t);
    for (int k = 0; k < 3; k++)
        uv_signal_stop(&w->sig[k]);
    if (w->http_on)
        rl_http_stop(&w->http);
    w->http_on = 0;
}

static void end_cb(uv_timer_t *t) { stop(t->data); }

static void sig_cb(uv_signal_t *s, int signum)
{
    rl_watch *w = s->data;
    w->signal = signum;
    stop(w);
}

static int serve(void *user, const rl_http_req *rq, hk_buf *body, const char **ctype)
{
    const rl_watch *w = user;
    if (!rl_http_reading(rq))
        return 405;
    if (strcmp(rq->path, "/metrics"))
        return 404;
    *ctype = "text/plain; version=0.0.4";
    rl_watch_metrics(w, body);
    return 200;
}

static int start_metrics(rl_watch *w, hk_err *e)
{
    char ip[64], msg[200];
    int port;
    if (!w->cfg->metrics)
        return 0;
    if (rl_addr_parse(w->cfg->metrics, ip, sizeof ip, &port) < 0)
        return hk_err_set(e, w->cfg->metrics, 0, 0, "expected IP:PORT");
    if (rl_http_start(&w->http, &w->loop, ip, port, serve, w, msg, sizeof msg) < 0)
        return hk_err_set(e, w->cfg->metrics, 0, 0, "%s", msg);
    w->http_on = 1;
    return 0;
}

static int masters_open(rl_watch *w, hk_err *e)
{
    const rl_watch_cfg *c = w->cfg;
    for (int i = 0; i < c->nmasters; i++) {
        rl_wmaster *m = &w->m[i];
        *m = (rl_wmaster){.w = w, .i = i, .backoff_s = 1};
        char sub[1200];
        if (c->nmasters == 1)
            snprintf(sub, sizeof sub, "%s/status", c->dir);
        else
            snprintf(sub, sizeof sub, "%s/status/%d-%s", c->dir, i + 1, c->names[i]);
        if (rl_wsave_open(&m->save, sub, c->keep_bytes, c->keep_s, e) < 0)
            return -1;
        if (!(m->rd = hk_statrd_new()))
            return hk_err_set(e, c->names[i], 0, 0, "out of memory");
        uv_timer_init(&w->loop, &m->poll);
        uv_timer_init(&w->loop, &m->guard);
        m->poll.data = m->guard.data = m;
        uv_timer_start(&m->poll, poll_cb, 0, 0);
    }
    return 0;
}

static void close_walk(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

static void teardown(rl_watch *w)
{
    stop(w);
    uv_run(&w->loop, UV_RUN_DEFAULT);
    uv_walk(&w->loop, close_walk, NULL);
    uv_run(&w->loop, UV_RUN_DEFAULT);
    uv_loop_close(&w->loop);
    for (int i = 0; w->m && i < w->cfg->nmasters; i++) {
        rl_wsave_close(&w->m[i].save);
        hk_statrd_free(w->m[i].rd);
        if (w->m[i].own)
            hk_cluster_free(w->m[i].own);
    }
    free(w->m);
    hk_watch_free(w->w);
    hk_wevents_free(&w->ev);
}

int rl_watch_run(const rl_watch_cfg *c, rl_watch_result *res, hk_err *e)
{
    memset(res, 0, sizeof *res);
    res->failed_kind = -1;
    rl_watch w = {.cfg = c, .failed_kind = -1};
    if (c->nmasters < 1 || c->nmasters > RL_WATCH_MASTERS_MAX)
        return hk_err_set(e, "--master", 0, 0, "expected 1 to %d masters", RL_WATCH_MASTERS_MAX);
    if (uv_loop_init(&w.loop) < 0)
        return hk_err_set(e, "libuv", 0, 0, "cannot start its loop");
    w.m = calloc((size_t)c->nmasters, sizeof *w.m);
    w.w = hk_watch_new(c->nmasters);
    uv_timer_init(&w.loop, &w.end_t);
    w.end_t.data = &w;
    static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
    for (int k = 0; k < 3; k++) {
        uv_signal_init(&w.loop, &w.sig[k]);
        w.sig[k].data = &w;
        uv_signal_start(&w.sig[k], sig_cb, sigs[k]);
    }
    int rc = !w.m || !w.w ? hk_err_set(e, c->dir, 0, 0, "out of memory") : 0;
    if (rc == 0 && !(w.events = rl_wsave_events_open(c->dir, e)))
        rc = -1;
    if (rc == 0 && c->windows && !(w.windows = rl_wsave_windows_open(c->dir, e)))
        rc = -1;
    if (rc == 0)
        rc = start_metrics(&w, e);
    if (rc == 0)
        rc = masters_open(&w, e);
    if (rc == 0 && c->duration_us > 0)
        uv_timer_start(&w.end_t, end_cb, (uint64_t)(c->duration_us / 1000), 0);
    if (rc == 0)
        uv_run(&w.loop, UV_RUN_DEFAULT);
    if (rc == 0 && w.broken) {
        *e = w.err;
        rc = -1;
    }
    res->signal = w.signal;
    res->failed_kind = w.failed_kind;
    res->events = w.nevents;
    for (int i = 0; w.m && i < c->nmasters; i++)
        res->snapshots += w.m[i].snaps;
    if (w.windows && fclose(w.windows) != 0 && rc == 0)
        rc = hk_err_set(e, c->dir, 0, 0, "windows.csv: a write failed");
    if (w.events && fclose(w.events) != 0 && rc == 0)
        rc = hk_err_set(e, c->dir, 0, 0, "events.jsonl: a write failed");
    teardown(&w);
    return rc;
}

const char *rl_watch_master_name(const rl_watch *w, int i) { return w->cfg->names[i]; }
int rl_watch_master_up(const rl_watch *w, int i) { return w->m[i].up; }
uint64_t rl_watch_master_snaps(const rl_watch *w, int i) { return w->m[i].snaps; }
