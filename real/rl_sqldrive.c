/* rl_sqldrive: a workload through a real searchd's SphinxQL (see rl_sqldrive.h). */
#include "rl_sqldrive.h"

#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "hk_csv.h"
#include "hk_file.h"
#include "hk_qlog.h"
#include "hk_time.h"
#include "rl_master.h"

struct rl_sq {
    rl_sqldrive *d;
    rl_sql *conn;
    rl_sq *prev, *next;          /* in d->flight */
    uint64_t id;
    int table, client, stage;    /* client: -1 open loop; stage 1: reading its warnings */
    const char *tname;           /* the table's name (a trace's may be no table here) */
    int64_t t_sched_us, t_sent_us, t_done_us;
    rl_sql_status st;
    int warnings;
    char msg[512];
};

static const char *const status_names[RL_SQ_N] = {"ok", "partial", "failed", "no_answer",
                                                  "not_sent", "unknown_table"};

const char *rl_sq_status_name(int st) { return st >= 0 && st < RL_SQ_N ? status_names[st] : "?"; }

static void client_next(rl_sqldrive *d, int client);
static void try_end(rl_sqldrive *d);

/* ---- rows and blame --------------------------------------------------- */

static int host_of_port(const rl_sqldrive *d, int port)
{
    for (int h = 0; h < d->s->cl->nhosts; h++)
        if (d->host_port[h] == port)
            return h;
    return -1;
}

/* Every agent a message names ("agent HOST:PORT: ...", one per line searchd reports) charged
 * to its mirror, by its loopback port: a connect-phase failure or a query's. */
static void blame(rl_sqldrive *d, const char *msg)
{
    const char *e = msg + strlen(msg), *at = msg;
    char addr[64];
    while ((at = hk_qlog_agent(at, e, addr, sizeof addr)) != NULL) {
        int h = host_of_port(d, atoi(strrchr(addr, ':') + 1));
        char rest[512];          /* what searchd says of it, to the line's end */
        snprintf(rest, sizeof rest, "%.*s", (int)strcspn(at, "\n"), at);
        if (h < 0)
            continue;
        if (strstr(rest, "connect"))
            d->fail_connect[h]++;
        else
            d->fail_query[h]++;
    }
}

static void row(rl_sqldrive *d, const rl_sq *q, int st)
{
    char f[4][48];
    snprintf(f[0], sizeof f[0], "%" PRIu64, q->id);
    snprintf(f[1], sizeof f[1], "%.6f", (double)q->t_sched_us / 1e6);
    snprintf(f[2], sizeof f[2], "%.6f", (double)q->t_sent_us / 1e6);
    snprintf(f[3], sizeof f[3], "%.3f", st >= RL_SQ_NOT_SENT ? 0.0 :
             (double)(q->t_done_us - q->t_sent_us) / 1e3);
    hk_csv_str(d->queries, f[0], 1);
    hk_csv_str(d->queries, f[1], 0);
    hk_csv_str(d->queries, f[2], 0);
    hk_csv_str(d->queries, q->tname, 0);
    hk_csv_str(d->queries, status_names[st], 0);
    hk_csv_str(d->queries, f[3], 0);
    hk_csv_str(d->queries, q->msg, 0);
    hk_csv_end(d->queries);
    d->count[st]++;
}

/* ---- one query -------------------------------------------------------- */

static void release(rl_sqldrive *d, rl_sql *c)
{
    if (rl_sql_usable(c) && !d->stopping && d->nidle < RL_SQD_CONN_MAX) {
        d->idle[d->nidle++] = c;
        return;
    }
    rl_sql_close(c);
    d->nconn--;
}

static void done(rl_sq *q)
{
    rl_sqldrive *d = q->d;
    int st = q->st == RL_SQL_IO ? RL_SQ_NO_ANSWER : q->st == RL_SQL_ERR ? RL_SQ_FAILED :
             q->warnings ? RL_SQ_PARTIAL : RL_SQ_OK;
    if (st != RL_SQ_OK)
        blame(d, q->msg);
    if (st == RL_SQ_OK || st == RL_SQ_PARTIAL)
        rl_prom_observe(&d->latency, (double)(q->t_done_us - q->t_sent_us) / 1e6);
    if (q->client < 0 && q->t_sent_us >= q->t_sched_us)
        rl_prom_observe(&d->lag, (double)(q->t_sent_us - q->t_sched_us) / 1e6);
    if ((st == RL_SQ_FAILED || st == RL_SQ_NO_ANSWER) && !d->first_error[0])
        snprintf(d->first_error, sizeof d->first_error, "%.255s", q->msg);
    row(d, q, st);
    if (q->prev)
        q->prev->next = q->next;
    else
        d->flight = q->next;
    if (q->next)
        q->next->prev = q->prev;
    d->inflight--;
    rl_sql *c = q->conn;
    int client = q->client;
    free(q);
    release(d, c);
    if (client >= 0)
        client_next(d, client);
    try_end(d);
}

/* The warnings' texts, one per line (SHOW WARNINGS rows: level, code, message). */
static void warnings_text(rl_sq *q, const char *tsv)
{
    size_t n = 0;
    q->msg[0] = 0;
    for (const char *l = tsv; *l && n + 2 < sizeof q->msg;) {
        const char *end = l + strcspn(l, "\n"), *m = l, *tab;
        for (int k = 0; k < 2 && (tab = memchr(m, '\t', (size_t)(end - m))) != NULL; k++)
            m = tab + 1;         /* past the level and the code */
        n += (size_t)snprintf(q->msg + n, sizeof q->msg - n, "%s%.*s", n ? "\n" : "",
                              (int)(end - m), m);
        l = *end ? end + 1 : end;
    }
}

static void on_answer(rl_sql *c, void *ctx, const rl_sql_res *r)
{
    rl_sq *q = ctx;
    if (q->stage == 1) {         /* SHOW WARNINGS */
        if (r->status == RL_SQL_OK)
            warnings_text(q, r->tsv);
        done(q);
        return;
    }
    q->t_done_us = rl_now_us() - q->d->t0_us;
    q->st = r->status;
    q->warnings = r->warnings;
    snprintf(q->msg, sizeof q->msg, "%s", r->msg);
    if (r->status == RL_SQL_OK && r->warnings > 0) {
        q->stage = 1;
        if (rl_sql_query(c, "SHOW WARNINGS", 1, on_answer, q) == 0)
            return;
    }
    done(q);
}

static int pick_table(const rl_sqldrive *d, uint64_t id)
{
    const hk_cluster *cl = d->s->cl;
    if (d->s->wl.table >= 0)
        return d->s->wl.table;
    int n = 0;
    for (int i = 0; i < cl->ntables; i++)
        n += cl->tables[i].nlines > 0;
    int k = n ? (int)(id % (uint64_t)n) : 0;
    for (int i = 0; i < cl->ntables; i++)
        if (cl->tables[i].nlines > 0 && k-- == 0)
            return i;
    return 0;
}

/* The statement for a query's full-text part: MATCH('...') with ' and \\ escaped as
 * SphinxQL reads them; an empty part selects without MATCH. The caller frees it. */
static char *statement(const char *table, const char *text)
{
    size_t n = strlen(text), k = 0;
    char *sql = malloc(2 * n + strlen(table) + 64);
    if (!sql)
        return NULL;
    k = (size_t)sprintf(sql, "SELECT * FROM %s", table);
    if (!n)
        return sql;
    k += (size_t)sprintf(sql + k, " WHERE MATCH('");
    for (const char *p = text; *p; p++) {
        if (*p == '\'' || *p == '\\')
            sql[k++] = '\\';
        sql[k++] = *p;
    }
    memcpy(sql + k, "')", 3);
    return sql;
}

/* A query of table (-1: tname is no table of the scenario's) due at sched_us. */
static void send_one(rl_sqldrive *d, int64_t sched_us, int client, int table, const char *tname,
                     const char *text)
{
    rl_sq *q = calloc(1, sizeof *q);
    if (!q)
        return;
    q->d = d;
    q->id = d->ids++;
    q->table = table;
    q->tname = tname;
    q->client = client;
    q->t_sched_us = sched_us;
    q->t_sent_us = rl_now_us() - d->t0_us;
    if (table < 0 || d->stopping) {
        snprintf(q->msg, sizeof q->msg, "%s", table < 0 ? "a table the scenario's config "
                 "does not have" : "the run was stopped before it was due");
        row(d, q, table < 0 ? RL_SQ_UNKNOWN_TABLE : RL_SQ_NOT_SENT);
        free(q);
        return;
    }
    rl_sql *c = d->nidle ? d->idle[--d->nidle] : NULL;
    if (!c && d->nconn < RL_SQD_CONN_MAX && (c = rl_sql_new(d->loop, &d->ql)) != NULL)
        d->nconn++;
    char *sql = statement(tname, text);
    q->conn = c;
    if (c && sql && rl_sql_query(c, sql, 0, on_answer, q) == 0) {
        free(sql);
        q->next = d->flight;
        if (d->flight)
            d->flight->prev = q;
        d->flight = q;
        d->inflight++;
        return;
    }
    free(sql);
    snprintf(q->msg, sizeof q->msg, "%d queries in flight already", RL_SQD_CONN_MAX);
    row(d, q, RL_SQ_NOT_SENT);
    if (c)
        release(d, c);
    free(q);
    if (client >= 0)
        client_next(d, client);
}

/* A generated query (arrivals, clients): "hakarma N" on the table in turn. */
static void send_generated(rl_sqldrive *d, int64_t sched_us, int client)
{
    char text[48];
    int t = pick_table(d, d->ids);
    snprintf(text, sizeof text, "hakarma %" PRIu64, d->ids);
    send_one(d, sched_us, client, t, d->s->cl->tables[t].name, text);
}

/* ---- sources ---------------------------------------------------------- */

static void send_cb(uv_timer_t *t)
{
    rl_sqldrive *d = t->data;
    int64_t now = rl_now_us() - d->t0_us;
    while (!d->stopping && d->next_us <= now) {
        send_generated(d, d->next_us, -1);
        int table;
        d->next_us = hk_arrivals_next((hk_arrivals *)&d->s->wl.arr, d->next_us, d->rng, &table);
        if (d->next_us < 0 || d->next_us >= d->duration_us)
            rl_sqldrive_stop(d, 0);
    }
    if (!d->stopping)
        uv_timer_start(&d->send_t, send_cb, (uint64_t)((d->next_us - now) / 1000), 0);
}

/* The trace's next query into d->rec: 1, 0 at its end, -1 malformed (d->err). */
static int next_rec(rl_sqldrive *d)
{
    if (d->have_rec)
        return 1;
    int rc = hk_trace_next(d->trace, &d->rec, &d->err);
    if (rc < 0)
        d->failed = 1;
    if (rc == 1 && !d->have_t0) {
        d->trace_t0 = d->rec.t_us;
        d->have_t0 = 1;
    }
    d->have_rec = rc == 1;
    return rc;
}

/* The config table a trace's table name stands for (table_map applied), if it has agents. */
static int table_index(const rl_sqldrive *d, const char *name)
{
    int t = hk_scn_table_of(d->s, name);
    return t >= 0 && d->s->cl->tables[t].nlines ? t : -1;
}

static void send_rec(rl_sqldrive *d, int64_t due)
{
    int t = table_index(d, d->rec.table);
    send_one(d, due, -1, t, t >= 0 ? d->s->cl->tables[t].name : d->rec.table, d->rec.query);
    d->have_rec = 0;
}

/* The trace at its own timing: each query when its offset from the first is due. */
static void trace_cb(uv_timer_t *t)
{
    rl_sqldrive *d = t->data;
    int64_t now = rl_now_us() - d->t0_us;
    while (!d->stopping && next_rec(d) == 1) {
        int64_t due = d->rec.t_us - d->trace_t0;
        if (due >= d->duration_us)
            break;
        if (due > now) {
            uv_timer_start(&d->send_t, trace_cb, (uint64_t)((due - now) / 1000), 0);
            return;
        }
        send_rec(d, due);
    }
    rl_sqldrive_stop(d, 0);
}

/* After a signal: the rest of the trace (within the run's length) gets not_sent rows. */
static void rest_not_sent(rl_sqldrive *d)
{
    while (d->trace && !d->failed && next_rec(d) == 1 &&
           d->rec.t_us - d->trace_t0 < d->duration_us)
        send_rec(d, d->rec.t_us - d->trace_t0);
}

static void think_cb(uv_timer_t *t)
{
    rl_sqclient *c = t->data;
    rl_sqldrive *d = c->d;
    if (d->stopping || rl_now_us() - d->t0_us >= d->duration_us) {
        rl_sqldrive_stop(d, 0);
        return;
    }
    send_generated(d, rl_now_us() - d->t0_us, (int)(c - d->clients));
}

static void client_next(rl_sqldrive *d, int client)
{
    rl_sqclient *c = &d->clients[client];
    if (d->stopping)
        return;
    double us = d->s->wl.think ? hk_dist_sample(d->s->wl.think, d->rng) : 0;
    uv_timer_start(&c->think, think_cb, (uint64_t)(us / 1000.0 + 0.5), 0);
}

/* ---- SHOW AGENT STATUS, every karma period ---------------------------- */

static void on_status(rl_sql *c, void *ctx, const rl_sql_res *r)
{
    rl_sqldrive *d = ctx;
    (void)c;
    d->snap_busy = 0;
    char dir[1100], name[64];
    hk_err e;
    hk_out o;
    uv_timeval64_t tv;
    uv_gettimeofday(&tv);
    snprintf(dir, sizeof dir, "%s/status", d->dir);
    snprintf(name, sizeof name, "status.%" PRId64 ".%06d.tsv", tv.tv_sec, (int)tv.tv_usec);
    if (r->status == RL_SQL_OK && hk_mkdirs(dir, &e) == 0 && hk_out_open(&o, dir, name, &e) == 0) {
        fputs(r->tsv, o.f);
        if (hk_out_commit(&o, &e) == 0)
            d->snaps++;
    }
    try_end(d);
}

static void snapshot(rl_sqldrive *d)
{
    if (d->snap_busy)
        return;
    if (d->snapc && !rl_sql_usable(d->snapc)) {
        rl_sql_close(d->snapc);
        d->snapc = NULL;
    }
    if (!d->snapc)
        d->snapc = rl_sql_new(d->loop, &d->ql);
    if (d->snapc && rl_sql_query(d->snapc, "SHOW AGENT STATUS", 1, on_status, d) == 0)
        d->snap_busy = 1;
}

static void snap_cb(uv_timer_t *t) { snapshot(t->data); }

/* ---- the run ---------------------------------------------------------- */

static void on_signal(uv_signal_t *s, int sig) { rl_sqldrive_stop(s->data, sig); }

static void drain_cb(uv_timer_t *t)
{
    rl_sqldrive *d = t->data;
    while (d->flight) {          /* each closed connection ends its query with no answer */
        rl_sq *q = d->flight;
        rl_sql_close(q->conn);
        if (d->flight == q)
            break;
    }
}

static void close_handles(rl_sqldrive *d)
{
    if (!d->handles_on)
        return;
    d->handles_on = 0;
    uv_close((uv_handle_t *)&d->send_t, NULL);
    uv_close((uv_handle_t *)&d->snap_t, NULL);
    uv_close((uv_handle_t *)&d->drain_t, NULL);
    for (int i = 0; i < 3; i++)
        uv_close((uv_handle_t *)&d->sig[i], NULL);
    for (int i = 0; i < d->s->wl.clients; i++)
        uv_close((uv_handle_t *)&d->clients[i].think, NULL);
}

static void try_end(rl_sqldrive *d)
{
    if (!d->stopping || d->inflight || d->finished || d->snap_busy)
        return;
    if (!d->final_asked) {       /* the last SHOW AGENT STATUS, once every query is answered */
        d->final_asked = 1;
        snapshot(d);
        if (d->snap_busy)
            return;
    }
    if (d->interrupted)
        rest_not_sent(d);
    d->finished = 1;
    while (d->nidle)
        rl_sql_close(d->idle[--d->nidle]);
    if (d->snapc)
        rl_sql_close(d->snapc);
    d->snapc = NULL;
    close_handles(d);
    if (d->on_end)
        d->on_end(d->user);
}

void rl_sqldrive_stop(rl_sqldrive *d, int sig)
{
    if (sig && !d->interrupted)
        d->interrupted = sig;
    if (d->stopping) {
        if (sig)                 /* a second signal: no more waiting */
            drain_cb(&d->drain_t);
        return;
    }
    d->stopping = 1;
    uv_timer_stop(&d->send_t);
    uv_timer_stop(&d->snap_t);
    const hk_settings *st = &d->s->cl->set;
    int64_t wait = sig ? 2000 : (st->connect_timeout_us + st->query_timeout_us) *
                   (st->retry_count + 1) / 1000 + 5000;
    uv_timer_start(&d->drain_t, drain_cb, (uint64_t)wait, 0);
    try_end(d);
}

int rl_sqldrive_start(rl_sqldrive *d)
{
    int nh = d->s->cl->nhosts, nc = d->s->wl.clients;
    d->idle = calloc(RL_SQD_CONN_MAX, sizeof *d->idle);
    d->fail_query = calloc((size_t)nh + 1, sizeof *d->fail_query);
    d->fail_connect = calloc((size_t)nh + 1, sizeof *d->fail_connect);
    d->clients = calloc((size_t)nc + 1, sizeof *d->clients);
    if (!d->idle || !d->fail_query || !d->fail_connect || !d->clients)
        return -1;
    uv_timer_init(d->loop, &d->send_t);
    uv_timer_init(d->loop, &d->snap_t);
    uv_timer_init(d->loop, &d->drain_t);
    d->send_t.data = d->snap_t.data = d->drain_t.data = d;
    static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
    for (int i = 0; i < 3; i++) {
        uv_signal_init(d->loop, &d->sig[i]);
        d->sig[i].data = d;
        uv_signal_start(&d->sig[i], on_signal, sigs[i]);
    }
    for (int i = 0; i < nc; i++) {
        uv_timer_init(d->loop, &d->clients[i].think);
        d->clients[i].think.data = &d->clients[i];
        d->clients[i].d = d;
    }
    d->handles_on = 1;
    d->t0_us = rl_now_us();
    uint64_t karma_ms = (uint64_t)d->s->cl->set.karma_s * 1000;
    uv_timer_start(&d->snap_t, snap_cb, karma_ms, karma_ms);
    for (int i = 0; i < nc && !d->trace; i++)
        uv_timer_start(&d->clients[i].think, think_cb, 0, 0);
    if (d->trace) {
        uv_timer_start(&d->send_t, trace_cb, 0, 0);
    } else if (!nc) {
        int table;
        d->next_us = hk_arrivals_next((hk_arrivals *)&d->s->wl.arr, 0, d->rng, &table);
        uv_timer_start(&d->send_t, send_cb, (uint64_t)(d->next_us > 0 ? d->next_us / 1000 : 0), 0);
    }
    return 0;
}

void rl_sqldrive_free(rl_sqldrive *d)
{
    free(d->idle);
    free(d->fail_query);
    free(d->fail_connect);
    free(d->clients);
}
