/* rl_searchd: a real searchd as a live cluster's master (see rl_searchd.h). */
#include "rl_searchd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "hk_file.h"
#include "hk_strat.h"
#include "hk_time.h"
#include "rl_addr.h"

/* ---- which searchd ---------------------------------------------------- */

/* Its output of `searchd ARG`, up to n bytes: the length, -1. */
static ssize_t banner_text(const char *path, const char *arg, char *buf, size_t n)
{
    int p[2];
    if (pipe(p) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        dup2(p[1], 2);
        close(p[0]);
        execlp(path, path, arg, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    size_t len = 0;
    ssize_t k;
    while (pid > 0 && len + 1 < n && (k = read(p[0], buf + len, n - 1 - len)) > 0)
        len += (size_t)k;
    buf[len] = 0;
    close(p[0]);
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || (WIFEXITED(st) && WEXITSTATUS(st) == 127))
        return -1;
    return (ssize_t)len;
}

/* The banner line in out ("Sphinx 2.2.11-id64-release (95ae9a6)", "Manticore 6.3.6 ..."):
 * 1 and sd->kind, 0 if none, -1 (e) for a Sphinx that is not 2.x. */
static int banner_of(rl_searchd *sd, const char *out, hk_err *e)
{
    for (const char *l = out; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
        size_t len = strcspn(l, "\r\n");
        int s2 = !strncmp(l, "Sphinx 2.", 9), mc = !strncmp(l, "Manticore ", 10);
        if (!s2 && !mc && strncmp(l, "Sphinx ", 7))
            continue;
        snprintf(sd->banner, sizeof sd->banner, "%.*s", (int)len, l);
        if (!s2 && !mc)
            return hk_err_set(e, sd->path, 0, 0, "is %s: hakarma drives Sphinx 2.2 and "
                              "Manticore searchd", sd->banner);
        sd->kind = mc ? RL_SD_MANTICORE : RL_SD_SPHINX2;
        return 1;
    }
    return 0;
}

/* Manticore prints its banner at --version only (its --help is the usage alone); 2.2.11 has no
 * --version but prints the banner before refusing it, and at --help too. */
int rl_searchd_probe(rl_searchd *sd, hk_err *e)
{
    static const char *const args[2] = {"--version", "--help"};
    char out[4096];
    for (int i = 0; i < 2; i++) {
        if (banner_text(sd->path, args[i], out, sizeof out) < 0)
            return hk_err_set(e, sd->path, 0, 0, "cannot run it (not found, or not "
                              "executable): give --master searchd=PATH");
        int k = banner_of(sd, out, e);
        if (k)
            return k < 0 ? -1 : 0;
    }
    return hk_err_set(e, sd->path, 0, 0, "neither its --version nor its --help names Sphinx "
                      "or Manticore: not a searchd");
}

/* ---- its config ------------------------------------------------------- */

static long long ms(int64_t us) { return (long long)(us / HK_MS); }

static int strategy_name(const char **name, int id, const char *table, hk_err *e)
{
    const hk_strat_ops *op = hk_strat_get(id);
    if (op->extension)
        return hk_err_set(e, table, 0, 0, "ha_strategy %s is a hakarma extension, not "
                          "searchd's (%s)", op->name, hk_strat_names());
    *name = op->name;
    return 0;
}

static void agent_line(FILE *f, const hk_line_conf *l, const char *table,
                       const struct sockaddr_in *addr)
{
    fputs(l->a.blackhole ? "    agent_blackhole = " : l->a.persistent ?
          "    agent_persistent = " : "    agent = ", f);
    for (int m = 0; m < l->a.n; m++) {
        const char *ix = l->a.m[m].indexes && *l->a.m[m].indexes ? l->a.m[m].indexes : table;
        fprintf(f, "%s127.0.0.1:%d:%s", m ? "|" : "", ntohs(addr[l->host[m]].sin_port), ix);
    }
    fputc('\n', f);
}

static int table_section(FILE *f, const rl_searchd *sd, const hk_table *t, int strategy,
                         const struct sockaddr_in *addr, hk_err *e)
{
    const char *sname = NULL;
    if (t->nlocal)
        return hk_err_set(e, t->name, 0, 0, "table has local parts (%s): hareal live writes "
                          "only agents for searchd", t->local[0]);
    if (strategy_name(&sname, strategy >= 0 ? strategy : t->strategy, t->name, e) < 0)
        return -1;
    fprintf(f, "index %s\n{\n    type = distributed\n", t->name);
    for (int i = 0; i < t->nlines; i++)
        agent_line(f, &t->lines[i], t->name, addr);
    fprintf(f, "    ha_strategy = %s\n    agent_connect_timeout = %lld\n"
            "    agent_query_timeout = %lld\n", sname, ms(t->connect_timeout_us),
            ms(t->query_timeout_us));
    if (sd->kind == RL_SD_MANTICORE && t->retry_count > 0)
        fprintf(f, "    agent_retry_count = %d\n", t->retry_count);
    fputs("}\n\n", f);
    return 0;
}

/* The config for s's tables (strategy >= 0 overrides theirs), host h at addr[h], into f:
 * 0, or -1 with e naming what searchd cannot be given (a hakarma extension strategy). */
static int config(FILE *f, const rl_searchd *sd, const hk_scn *s, int strategy,
                  const struct sockaddr_in *addr, hk_err *e)
{
    const hk_cluster *cl = s->cl;
    const hk_settings *st = &cl->set;
    fprintf(f, "# written by hareal live for %s (%s)\n\n", s->file, sd->banner);
    for (int i = 0; i < cl->ntables; i++)
        if (cl->tables[i].nlines && table_section(f, sd, &cl->tables[i], strategy, addr, e) < 0)
            return -1;
    fprintf(f, "searchd\n{\n    listen = 127.0.0.1:%d:mysql41\n    log = %s/searchd.log\n"
            "    query_log = %s/query.log\n    query_log_format = sphinxql\n"
            "    pid_file = %s/searchd.pid\n    binlog_path =\n", sd->ql_port, sd->dir, sd->dir,
            sd->dir);
    if (sd->kind == RL_SD_SPHINX2)     /* Manticore has only threads, and warns at the key */
        fputs("    workers = threads\n", f);
    fprintf(f, "    ha_period_karma = %lld\n    ha_ping_interval = %lld\n"
            "    agent_connect_timeout = %lld\n    agent_query_timeout = %lld\n"
            "    agent_retry_count = %d\n    agent_retry_delay = %lld\n", (long long)st->karma_s,
            ms(st->ping_us), ms(st->connect_timeout_us), ms(st->query_timeout_us),
            st->retry_count, ms(st->retry_delay_us));
    if (st->persistent_limit > 0)
        fprintf(f, "    persistent_connections_limit = %d\n", st->persistent_limit);
    fputs("}\n", f);
    return ferror(f) ? hk_err_set(e, sd->dir, 0, 0, "cannot write searchd.conf") : 0;
}

/* ---- the process ------------------------------------------------------ */

/* The last n lines of DIR/NAME to f, each indented (a missing file says so). */
static void tail(const hk_say *f, const rl_searchd *sd, const char *name, int n)
{
    char p[1100], *buf = NULL;
    size_t len = 0;
    hk_err e;
    snprintf(p, sizeof p, "%s/%s", sd->dir, name);
    if (hk_file_read(p, &buf, &len, &e) < 0) {
        hk_sayf(f, "  (%s: none)", p);
        return;
    }
    size_t at = len;
    for (int k = 0; at > 0 && k <= n; k++)
        while (at > 0 && buf[--at] != '\n')
            ;
    hk_sayf(f, "  last lines of %s:", p);
    for (char *l = buf + at + (buf[at] == '\n'); *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0))
        hk_sayf(f, "    %.*s", (int)strcspn(l, "\n"), l);
    free(buf);
}

static void reap(rl_searchd *sd)
{
    int st = 0;
    if (!sd->running || waitpid(sd->pid, &st, WNOHANG) != sd->pid)
        return;
    sd->running = 0;
    sd->term_sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    sd->exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (sd->watch_on) {
        uv_close((uv_handle_t *)&sd->watch, NULL);
        sd->watch_on = 0;
    }
}

static void watch_cb(uv_timer_t *t)
{
    rl_searchd *sd = t->data;
    reap(sd);
    if (sd->running && sd->stop_sent && (int64_t)uv_now(sd->loop) >= sd->stop_at_ms &&
        !sd->killed) {
        kill(sd->pid, SIGKILL);
        sd->killed = 1;
    }
}

static int fork_searchd(rl_searchd *sd, const char *conf, int out_fd)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);   /* hareal gone, however: searchd goes too */
        if (getppid() != parent)
            _exit(127);
        dup2(out_fd, 1);
        dup2(out_fd, 2);
        execlp(sd->path, sd->path, "--config", conf, "--nodetach", (char *)NULL);
        _exit(127);
    }
    if (pid < 0)
        return -1;
    sd->pid = pid;
    sd->running = 1;
    uv_timer_init(sd->loop, &sd->watch);
    sd->watch.data = sd;
    sd->watch_on = 1;
    uv_timer_start(&sd->watch, watch_cb, 50, 50);
    return 0;
}

static void say_logs(const rl_searchd *sd)
{
    tail(&sd->say, sd, "searchd.out", 8);
    tail(&sd->say, sd, "searchd.log", 8);
}

int rl_searchd_start(rl_searchd *sd, const hk_scn *s, int strategy,
                     const struct sockaddr_in *addr, hk_err *ep)
{
    hk_err e;
    hk_out co = {0};
    char conf[1100];
    int w = hk_mkdirs(sd->dir, &e) < 0 || hk_out_open(&co, sd->dir, "searchd.conf", &e) < 0
            ? -1 : config(co.f, sd, s, strategy, addr, &e);
    if (w == 0)
        w = hk_out_commit(&co, &e);
    else if (co.f)
        hk_out_abort(&co);
    if (w < 0) {
        *ep = e;
        return -1;
    }
    snprintf(conf, sizeof conf, "%s/searchd.conf", sd->dir);
    int dfd = hk_dir_open(sd->dir, &e), fd = dfd < 0 ? -1 : hk_create_at(dfd, "searchd.out");
    if (dfd >= 0) /* searchd's output: never written through a link planted there */
        close(dfd);
    int rc = fd < 0 ? -1 : fork_searchd(sd, conf, fd);
    if (fd >= 0)
        close(fd);
    if (rc < 0)
        return hk_err_set(ep, sd->path, 0, 0, "cannot be started: %s", strerror(errno));
    for (int i = 0; i < 750 && sd->running; i++) {
        if (rl_port_up(sd->ql_port))
            return 0;
        nanosleep(&(struct timespec){0, 20000000}, NULL);
        reap(sd);
    }
    say_logs(sd);
    return hk_err_set(ep, sd->path, 0, 0, "(%s) %s on 127.0.0.1:%d", sd->banner,
                      sd->running ? "did not listen within 15 s"
                                  : "exited at start instead of listening", sd->ql_port);
}

void rl_searchd_stop(rl_searchd *sd)
{
    if (!sd->running || sd->stop_sent)
        return;
    kill(sd->pid, SIGTERM);
    sd->stop_sent = 1;
    sd->stop_at_ms = (int64_t)uv_now(sd->loop) + 10000;
}

int rl_searchd_verdict(const rl_searchd *sd, int stopped_by_us, hk_err *e)
{
    if (stopped_by_us && !sd->killed)
        return 0;
    if (sd->killed)
        hk_err_set(e, "searchd", 0, 0, "pid %d did not stop within 10 s of SIGTERM: killed",
                   sd->pid);
    else if (sd->term_sig)
        hk_err_set(e, "searchd", 0, 0, "pid %d died of signal %d during the run", sd->pid,
                   sd->term_sig);
    else
        hk_err_set(e, "searchd", 0, 0, "pid %d exited by itself during the run (status %d)",
                   sd->pid, sd->exit_code);
    say_logs(sd);
    return -1;
}
