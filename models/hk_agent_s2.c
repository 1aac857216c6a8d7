/* hk_agent_s2: the agent-line grammar of Sphinx 2.2.11's searchd, as its
 * state machine reads a line (see ../shared/spec/ha-research.md §5.1): a host
 * of letters, digits, '-', '_', '.', '/' (a leading '/' is a unix socket), a
 * mandatory ':' and port for TCP, an optional ':' and index list (letters,
 * digits, '-', '_', spaces, commas), mirrors split by '|' with no spaces, and
 * '[...]' options anywhere, applied to the whole line. A line searchd skips
 * comes back as 1 with its own "- SKIPPING AGENT" reason; names are not
 * resolved here (hareal resolves them when it connects). */
#include "hk_agent.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct s2 {
    const char *v;               /* the whole value */
    hk_pos pos;
    hk_err *err;
    hk_warns *warns;
    hk_agent_line *a;
} s2;

static int alpha(int c) { return isalnum(c) || c == '-' || c == '_'; }
static int delim(int c) { return c == '|' || c == '[' || c == ']'; }

/* searchd skips the line: its reason, at the offset it names. */
static int skip(const s2 *x, const char *p, const char *fmt)
{
    char near[48];
    snprintf(near, sizeof near, "%.40s", p);
    hk_err_set(x->err, x->pos.file, x->pos.line, x->pos.col + (int)(p - x->v), fmt, near);
    return 1;
}

static int oom(const s2 *x)
{
    hk_err_set(x->err, x->pos.file, x->pos.line, x->pos.col, "out of memory");
    return -1;
}

/* A finished mirror: an empty host is searchd's 'empty' name; a non-empty index list is
 * given to the preceding mirrors that have none. */
static int validate(const s2 *x, hk_mirror_addr *m)
{
    if (!m->host || !m->host[0])
        return skip(x, x->v, "invalid host name 'empty' - SKIPPING AGENT%.0s");
    int i = (int)(m - x->a->m);
    if (m->indexes && m->indexes[0])
        for (int k = i - 1; k >= 0 && !x->a->m[k].indexes[0]; k--) {
            free(x->a->m[k].indexes);
            if (!(x->a->m[k].indexes = strdup(m->indexes)))
                return oom(x);
        }
    return 0;
}

static char *no_spaces(const char *b, const char *e)
{
    char *s = malloc((size_t)(e - b) + 1), *o = s;
    for (; s && b < e; b++)
        if (!isspace((unsigned char)*b))
            *o++ = *b;
    if (s)
        *o = '\0';
    return s;
}

static int starts(const char *s, const char *word) { return !strncmp(s, word, strlen(word)); }

static void option(s2 *x, const char *name, const char *value, const char *end)
{
    hk_agent_line *a = x->a;
    int ok = 0;
    if (starts(name, "conn")) {
        ok = starts(value, "pconn") || starts(value, "persistent");
        a->persistent |= ok;
    } else if (starts(name, "ha_strategy")) {
        static const char *known[] = {"random", "roundrobin", "nodeads", "noerrors"};
        for (int k = 0; k < 4 && !ok; k++)
            if (starts(value, known[k])) {
                snprintf(a->strategy, sizeof a->strategy, "%s", known[k]);
                a->strategy_col = x->pos.col + (int)(value - x->v);
                ok = 1;
            }
    } else if (starts(name, "blackhole")) {
        a->blackhole = atoi(value) != 0;
        ok = 1;
    }
    if (!ok)
        hk_warn_add(x->warns, x->pos.file, x->pos.line, x->pos.col + (int)(name - x->v),
                    "agent: unknown agent option '%.*s' (Sphinx 2.2.11 ignores it)",
                    (int)(end - name), name);
}

/* The options up to a delimiter or the end; returns where it stopped. */
static const char *options(s2 *x, const char *p)
{
    const char *name = NULL, *value = NULL;
    int eq = 0;
    for (; *p; p++) {
        int next_opt = *p == ',', next_agent = delim(*p);
        eq |= *p == '=';
        if (next_opt || next_agent) {
            if (name && value)
                option(x, name, value, p);
            name = value = NULL;
            eq = 0;
            if (next_agent)
                break;
        }
        if (alpha((unsigned char)*p)) {
            if (!name)
                name = p;
            else if (eq && !value)
                value = p;
        }
    }
    return p;
}

enum { IN_HOST, IN_PORT, START_LIST, IN_LIST, IN_OPTIONS, DONE };

static hk_mirror_addr *next_mirror(s2 *x)
{
    hk_mirror_addr *m = hk_agent_too_many(x->a) ? NULL : hk_agent_add(x->a);
    if (m && !(m->indexes = strdup("")))
        return NULL;
    return m;
}

/* One step of the state machine at p; may move p. Returns the new state, or -2 - rc to stop. */
static int step(s2 *x, int st, const char **pp, const char **anchor, hk_mirror_addr **cur)
{
    const char *p = *pp;
    hk_mirror_addr *m = *cur;
    int rc;
    switch (st) {
    case IN_HOST:
        if (!*p)
            return DONE;
        if (alpha((unsigned char)*p) || *p == '.' || *p == '/')
            return IN_HOST;
        if (p == *anchor)
            return -2 - skip(x, *anchor, "host name or path expected%.0s - SKIPPING AGENT");
        if (*p != ':')
            return -2 - skip(x, p, "colon expected near '%s' - SKIPPING AGENT");
        if (p - *anchor >= HK_HOST_MAX)
            return -2 - skip(x, *anchor, "host name too long near '%s' - SKIPPING AGENT");
        m->col = x->pos.col + (int)(*anchor - x->v);
        free(m->host); /* after options, searchd reuses the mirror it was filling */
        if (!(m->host = strndup(*anchor, (size_t)(p - *anchor))))
            return -2 - oom(x);
        m->is_unix = m->host[0] == '/';
        if (m->is_unix)
            *pp = --p; /* the ':' is read again as the end of the "port" */
        *anchor = p + 1;
        return IN_PORT;
    case IN_PORT:
        if (isdigit((unsigned char)*p))
            return IN_PORT;
        if (!m->is_unix) {
            if (p == *anchor)
                return -2 - skip(x, p, "port number expected near '%s' - SKIPPING AGENT");
            long port = 0;
            for (const char *d = *anchor; d < p && port <= 65535; d++)
                port = port * 10 + (*d - '0');
            if (port < 1 || port > 65535)
                return -2 - skip(x, p, "invalid port number near '%s' - SKIPPING AGENT");
            m->port = (int)port;
        }
        if (delim(*p)) {
            *anchor = p + 1;
            if ((rc = validate(x, m)) != 0)
                return -2 - rc;
            if (!(*cur = next_mirror(x)))
                return -2 - oom(x);
            return *p == '|' ? IN_HOST : IN_OPTIONS;
        }
        if (*p != ':')
            return -2 - skip(x, p, "colon expected near '%s' - SKIPPING AGENT");
        *anchor = p + 1;
        return START_LIST;
    case START_LIST:
        if (isspace((unsigned char)*p))
            return START_LIST;
        *anchor = p;
        /* fall through */
    case IN_LIST:
        if (alpha((unsigned char)*p) || isspace((unsigned char)*p) || *p == ',')
            return IN_LIST;
        if (*p && !delim(*p))
            return -2 - skip(x, p, "index list expected near '%s' - SKIPPING AGENT");
        free(m->indexes);
        if (!(m->indexes = no_spaces(*anchor, p)))
            return -2 - oom(x);
        if (!delim(*p))
            return DONE;
        *anchor = p + 1;
        if (*p != '|')
            return IN_OPTIONS;
        if ((rc = validate(x, m)) != 0)
            return -2 - rc;
        if (!(*cur = next_mirror(x)))
            return -2 - oom(x);
        return IN_HOST;
    case IN_OPTIONS:
        *pp = p = options(x, p);
        *anchor = p + 1;
        return delim(*p) ? IN_HOST : DONE;
    }
    return DONE;
}

int hk_agent_parse_sphinx2(const char *value, hk_pos pos, hk_agent_line *out, hk_err *err,
                           hk_warns *warns)
{
    memset(out, 0, sizeof *out);
    out->retry_count = -1;
    s2 x = {.v = value, .pos = pos, .err = err, .warns = warns, .a = out};
    const char *p = value;
    while (*p && isspace((unsigned char)*p))
        p++;
    int st = !*p ? DONE : *p == '[' ? IN_OPTIONS : IN_HOST;
    if (*p == '[')
        p++;
    const char *anchor = p;
    hk_mirror_addr *cur = next_mirror(&x);
    int rc = cur ? 0 : oom(&x);
    while (rc == 0 && st != DONE) {
        st = step(&x, st, &p, &anchor, &cur);
        if (st <= -2)
            rc = -2 - st;
        else if (*p)
            p++;
        else
            st = st == IN_HOST || st == IN_OPTIONS ? DONE : st;
    }
    if (rc == 0 && out->n && !out->m[out->n - 1].host)
        rc = skip(&x, value, "invalid host name 'empty' - SKIPPING AGENT%.0s");
    if (rc == 0 && out->n)
        rc = validate(&x, &out->m[out->n - 1]);
    if (rc == 0 && hk_agent_too_many(out))
        rc = skip(&x, value, "too many mirrors (hakarma's limit: 100000 in one line)%.0s");
    if (rc != 0)
        hk_agent_line_free(out);
    return rc;
}
