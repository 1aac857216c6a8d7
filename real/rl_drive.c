/* rl_drive: the query source of hareal replay and hareal live. */
#include "rl_drive.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "hk_report.h"

static double rel(int64_t t, int64_t t0) { return t > 0 ? (double)(t - t0) / 1e6 : 0.0; }

static void row(rl_drive *d, uint64_t id, int64_t sched, int64_t sent, const char *table,
                int agent, const char *mirror, int attempts, const char *status, double lat_ms)
{
    hk_rep_query_row(d->queries, id, rel(sched, d->t0_us), rel(sent, d->t0_us), table, agent,
                     mirror, attempts, status, lat_ms);
}

static void close_handles(rl_drive *d)
{
    if (!d->handles_on)
        return;
    d->handles_on = 0;
    uv_timer_stop(&d->timer);
    uv_close((uv_handle_t *)&d->timer, NULL);
    uv_close((uv_handle_t *)&d->sigint, NULL);
    uv_close((uv_handle_t *)&d->sigterm, NULL);
    uv_close((uv_handle_t *)&d->sighup, NULL);
    uv_close((uv_handle_t *)&d->check, NULL);
    uv_close((uv_handle_t *)&d->idle, NULL);
    uv_close((uv_handle_t *)&d->tick, NULL);
    if (d->progress)
        hk_progress_done(d->progress);
    for (int c = 0; d->clients && c < d->nclients; c++)
        uv_close((uv_handle_t *)&d->clients[c].think, NULL);
}

static void check_end(rl_drive *d)
{
    if (!d->finished && d->eof && d->m->inflight == 0) {
        d->finished = 1;
        close_handles(d);
        if (d->on_end)
            d->on_end(d);
        if (d->user_end)
            d->user_end(d->user);
    }
}

static void client_think(rl_drive *d, uint64_t id);

void rl_drive_on_done(void *ctx, const rl_outcome *o, int last, int qok)
{
    rl_drive *d = ctx;
    const hk_table *t = &d->cl->tables[o->table];
    const hk_line_conf *lc = &t->lines[o->line];
    rl_drive_count(&d->st, o, lc->host[o->mirror], last, qok, d->concurrency <= 0 && !d->nclients);
    row(d, o->id, o->t_sched_us, o->t_sent_us, t->name, o->line + 1,
        d->cl->hosts[lc->host[o->mirror]].name, o->attempts, rl_outcome_name(o->kind),
        (double)(o->t_done_us - o->t_sent_us) / 1000.0);
    if (last && o->t_sent_us >= o->t_sched_us)
        hk_hist_add(&d->lag, (double)(o->t_sent_us - o->t_sched_us));
    if (last && d->nclients)
        client_think(d, o->id);
}

/* ---- sources ---------------------------------------------------------- */

static void generated(rl_drive *d, int64_t t)
{
    d->next.t_us = t;
    d->next.real_s = 0;
    int tb = d->arr_table >= 0 ? d->arr_table : (int)(d->ids % (uint64_t)d->cl->ntables);
    snprintf(d->next.table, sizeof d->next.table, "%s", d->cl->tables[tb].name);
    snprintf(d->qtext, sizeof d->qtext, "hakarma query %" PRIu64, d->ids);
    d->next.query = d->qtext;
    d->next.qcap = sizeof d->qtext;
}

static int read_next(rl_drive *d)
{
    if (d->trace) {
        int rc = hk_trace_next(d->trace, &d->next, &d->err);
        if (rc < 0)
            d->failed = 1;
        return rc == 1;
    }
    if (d->nclients)
        return 0; /* clients make their own queries */
    int64_t now = rl_now_us() - d->t0_us;
    int table; /* generated arrivals have none of their own */
    int64_t t = hk_arrivals_next(d->arr, d->have_next ? d->next.t_us : now, d->rng, &table);
    if (t < 0 || t >= d->duration_us)
        return 0;
    generated(d, t);
    return 1;
}

/* When the pending record is due, in µs since the epoch. */
static int64_t due(rl_drive *d)
{
    if (!d->trace)
        return d->t0_us + d->next.t_us;
    if (!d->have_t0) {
        d->t0_trace = d->next.t_us;
        d->have_t0 = 1;
    }
    return d->t0_us + (int64_t)((double)(d->next.t_us - d->t0_trace) / d->speed);
}

static const hk_table *table_of(rl_drive *d, const char *name)
{
    for (int i = 0; i < d->ntmap; i++)
        if (!strcmp(d->tmap[i][0], name))
            name = d->tmap[i][1];
    return hk_cluster_find_table(d->cl, name);
}

static void note_unknown(rl_drive *d, const char *name)
{
    d->unknown++;
    size_t n = strlen(d->unknown_names);
    if (strstr(d->unknown_names, name) || n + strlen(name) + 3 >= sizeof d->unknown_names)
        return;
    snprintf(d->unknown_names + n, sizeof d->unknown_names - n, "%s%s", n ? ", " : "", name);
}

/* A query that is not sent still gets one row per agent line. */
static void not_sent(rl_drive *d, uint64_t id, int64_t sched, const hk_table *t)
{
    d->not_sent++;
    for (int k = 0; k < t->nlines; k++)
        row(d, id, sched, 0, t->name, k + 1, "", 0, "not_sent", 0);
}

/* Send the pending record (or give it its rows); 0 when submitted. */
static int send_rec(rl_drive *d, int64_t sched, uint64_t *idp)
{
    uint64_t id = d->ids++;
    const hk_table *t = table_of(d, d->next.table);
    if (idp)
        *idp = id;
    if (!t) {
        note_unknown(d, d->next.table);
        row(d, id, sched, 0, d->next.table, 0, "", 0, "unknown_table", 0);
        return -1;
    }
    if (d->interrupted ||
        rl_master_submit(d->m, id, (int)(t - d->cl->tables), d->next.query, sched) < 0) {
        not_sent(d, id, sched, t);
        return -1;
    }
    return 0;
}

static void send_one(rl_drive *d, int64_t sched)
{
    send_rec(d, sched, NULL);
    d->have_next = read_next(d);
    if (!d->have_next)
        d->eof = 1;
}

/* ---- closed-loop clients ---------------------------------------------- */

static void client_send(uv_timer_t *t)
{
    rl_client *c = t->data;
    rl_drive *d = c->d;
    if (d->interrupted || d->eof || rl_now_us() - d->t0_us >= d->duration_us) {
        c->inflight = 0;
        d->eof = 1;
        return;
    }
    generated(d, rl_now_us() - d->t0_us);
    uint64_t id;
    c->inflight = send_rec(d, rl_now_us(), &id) == 0 ? id + 1 : 0;
    if (!c->inflight) /* not sent: think again */
        uv_timer_start(&c->think, client_send, 1, 0);
}

static void client_think(rl_drive *d, uint64_t id)
{
    for (int i = 0; i < d->nclients; i++)
        if (d->clients[i].inflight == id + 1) {
            d->clients[i].inflight = 0;
            double us = d->think ? hk_dist_sample(d->think, d->rng) : 0;
            uv_timer_start(&d->clients[i].think, client_send, (uint64_t)(us / 1000.0 + 0.5), 0);
            return;
        }
}

static int start_clients(rl_drive *d)
{
    d->clients = calloc((size_t)d->nclients, sizeof *d->clients);
    if (!d->clients)
        return -1;
    for (int i = 0; i < d->nclients; i++) {
        rl_client *c = &d->clients[i];
        c->d = d;
        uv_timer_init(d->loop, &c->think);
        c->think.data = c;
        double us = d->think ? hk_dist_sample(d->think, d->rng) : 0;
        uv_timer_start(&c->think, client_send, (uint64_t)(us / 1000.0 + 0.5), 0);
    }
    return 0;
}

/* ---- the pump --------------------------------------------------------- */

static void on_idle(uv_idle_t *h);

static void pump(uv_timer_t *t)
{
    rl_drive *d = t->data;
    for (;;) {
        if (d->nclients) { /* clients drive themselves; this only notices the end */
            if (d->interrupted || rl_now_us() - d->t0_us >= d->duration_us)
                d->eof = 1;
            break;
        }
        if (!d->have_next) {
            d->eof = 1;
            break;
        }
        if (d->interrupted) { /* every remaining trace query still gets its rows */
            send_one(d, d->trace ? due(d) : d->t0_us + d->next.t_us);
            continue;
        }
        if (d->concurrency > 0) {
            if (d->m->inflight >= (uint64_t)d->concurrency)
                return;
            send_one(d, rl_now_us());
            continue;
        }
        int64_t when = due(d), now = rl_now_us();
        if (when - now >= 2000) { /* sleep in the loop, waking a millisecond early */
            uv_idle_stop(&d->idle);
            uv_timer_start(&d->timer, pump, (uint64_t)((when - now) / 1000 - 1), 0);
            return;
        }
        if (when > now) { /* libuv timers are ms: spin the loop, I/O included, until due */
            uv_idle_start(&d->idle, on_idle);
            return;
        }
        send_one(d, when);
    }
    uv_idle_stop(&d->idle);
    check_end(d);
}

static void on_idle(uv_idle_t *h)
{
    rl_drive *d = h->data;
    pump(&d->timer);
}

static void on_signal(uv_signal_t *s, int sig)
{
    rl_drive *d = s->data;
    hk_sayf(&d->say, "interrupted by %s: stopping, every query still gets its rows",
            strsignal(sig));
    rl_drive_stop(d, sig);
}

void rl_drive_stop(rl_drive *d, int interrupted)
{
    if (d->finished)
        return;
    if (interrupted) {
        d->interrupted = interrupted;
        rl_master_abort(d->m);
    }
    if (!d->trace)
        d->have_next = 0; /* generated arrivals: nothing more is due */
    if (d->handles_on)
        uv_timer_start(&d->timer, pump, 0, 0);
}

/* Closed loop: a finished query makes room for the next one; the end is noticed here. */
/* A run's stream that fails to write (a full disk) stops the run at once: nothing more is sent,
 * and the caller removes what it wrote. */
static int write_failed(rl_drive *d)
{
    FILE *f[3] = {d->queries, d->m->c.periods, d->m->c.latency};
    for (int i = 0; i < 3 && !d->write_failed; i++)
        if (f[i] && ferror(f[i])) {
            d->write_failed = 1;
            hk_err_set(&d->err, "the run's folder", 0, 0, "a file of the run could not be "
                       "written (disk full?): stopping at the first failed write");
            rl_drive_stop(d, 0);
        }
    return d->write_failed;
}

static void on_check(uv_check_t *c)
{
    rl_drive *d = c->data;
    if (d->finished)
        return;
    if (write_failed(d)) { /* nothing more is sent: end once the queries in flight have */
        d->eof = 1;
        check_end(d);
        return;
    }
    if (d->nclients && rl_now_us() - d->t0_us >= d->duration_us)
        d->eof = 1;
    if (d->eof)
        check_end(d);
    else if (d->concurrency > 0 && d->m->inflight < (uint64_t)d->concurrency)
        pump(&d->timer);
}

/* The progress line: how far through the trace (or the run's duration) it is. */
static void on_tick(uv_timer_t *t)
{
    rl_drive *d = t->data;
    char what[64];
    snprintf(what, sizeof what, "%" PRIu64 " queries sent", d->m->sent);
    double frac = d->trace ? hk_trace_progress(d->trace)
                           : (double)(rl_now_us() - d->t0_us) / (double)d->duration_us;
    hk_progress_update(d->progress, frac > 1 ? 1 : frac, what);
}

int rl_drive_start(rl_drive *d)
{
    d->t0_us = d->m->t0_us;
    if (rl_drive_stats_init(&d->st, d->cl->nhosts) < 0) {
        d->failed = 1;
        return hk_err_set(&d->err, "hareal", 0, 0, "out of memory");
    }
    hk_rep_queries_header(d->queries);
    d->have_next = read_next(d); /* a bad first record: nothing is started, nothing hangs */
    if (d->failed)
        return -1;
    uv_timer_init(d->loop, &d->timer);
    d->timer.data = d;
    uv_signal_init(d->loop, &d->sigint);
    uv_signal_init(d->loop, &d->sigterm);
    uv_signal_init(d->loop, &d->sighup);
    d->sigint.data = d->sigterm.data = d->sighup.data = d;
    uv_signal_start(&d->sigint, on_signal, SIGINT);
    uv_signal_start(&d->sigterm, on_signal, SIGTERM);
    uv_signal_start(&d->sighup, on_signal, SIGHUP);
    uv_idle_init(d->loop, &d->idle);
    d->idle.data = d;
    uv_check_init(d->loop, &d->check);
    d->check.data = d;
    uv_check_start(&d->check, on_check);
    uv_timer_init(d->loop, &d->tick);
    d->tick.data = d;
    if (d->progress && d->progress->on)
        uv_timer_start(&d->tick, on_tick, 250, 250);
    d->handles_on = 1;
    if (d->nclients && start_clients(d) < 0) {
        close_handles(d);
        return hk_err_set(&d->err, "hareal", 0, 0, "out of memory");
    }
    uv_timer_start(&d->timer, pump, d->nclients ? (uint64_t)(d->duration_us / 1000) : 0, 0);
    return 0;
}

void rl_drive_free(rl_drive *d)
{
    free(d->clients);
    d->clients = NULL;
    hk_hist_free(&d->lag);
    rl_drive_stats_free(&d->st);
}

double rl_drive_lag_p99(const rl_drive *d)
{
    return d->concurrency <= 0 && !d->nclients ? hk_hist_quantile(&d->lag, 0.99) : 0;
}
