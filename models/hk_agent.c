/* hk_agent: the agent line's mirrors, and Manticore's grammar for it (which
 * accepts every form the Sphinx 2.2.11 docs show). See hk_agent.h. */
#include "hk_agent.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_grow.h"

typedef struct cur {
    const char *s;
    hk_pos pos;
    hk_err *err;
    hk_warns *warns;
} cur;

static int at(const cur *c, int i, const char *what, const char *near)
{
    return hk_err_set(c->err, c->pos.file, c->pos.line, c->pos.col + i,
                      "agent: expected %s near '%.40s'", what, near);
}

static int host_char(int ch) { return isalnum(ch) || ch == '-' || ch == '_' || ch == '.' || ch == '/'; }
static int index_char(int ch) { return isalnum(ch) || ch == '-' || ch == '_' || ch == ' ' || ch == ','; }

/* Copy an index list into a new string, dropping spaces, checking each name is non-empty. */
static int norm_indexes(const cur *c, int i0, const char *s, int n, char **outp)
{
    char *out = malloc((size_t)n + 1);
    if (!(*outp = out))
        return at(c, i0, "less memory use", s);
    int o = 0, len = 0;
    for (int i = 0; i <= n; i++) {
        int ch = i < n ? (unsigned char)s[i] : ',';
        if (ch == ' ')
            continue;
        if (ch == ',') {
            if (len == 0 && i == n && o > 0)
                return at(c, i0 + i, "an index name after ','", s);
            if (len == 0 && i < n)
                return at(c, i0 + i, "an index name in the list", s);
            if (i < n)
                out[o++] = ',';
            len = 0;
            continue;
        }
        out[o++] = (char)ch;
        len++;
    }
    out[o] = '\0';
    return 0;
}

static int parse_port(const cur *c, int i, int *port)
{
    const char *s = c->s;
    long v = 0;
    int j = i;
    while (isdigit((unsigned char)s[j]) && j - i < 6)
        v = v * 10 + (s[j++] - '0');
    if (v < 1 || v > 65535 || isdigit((unsigned char)s[j]))
        return at(c, i, "a port number 1..65535", s + i);
    *port = (int)v;
    return j;
}

/* Parse one mirror in s[b..e) (already trimmed). */
static int parse_mirror(const cur *c, int b, int e, hk_mirror_addr *m)
{
    const char *s = c->s;
    m->col = c->pos.col + b;
    int i = b;
    m->is_unix = s[i] == '/';
    while (i < e && host_char((unsigned char)s[i]))
        i++;
    if (i == b)
        return at(c, b, "a host name or a /unix/socket path", s + b);
    if (i - b >= HK_HOST_MAX)
        return at(c, b, "a host name of at most 255 characters", s + b);
    if (!(m->host = strndup(s + b, (size_t)(i - b))))
        return at(c, b, "less memory use", s + b);
    if (i < e && s[i] != ':')
        return at(c, i, "':' after the host", s + i);
    if (!m->is_unix) {
        if (i < e && isdigit((unsigned char)s[i + 1])) {
            i = parse_port(c, i + 1, &m->port);
            if (i < 0)
                return -1;
            if (i < e && s[i] != ':')
                return at(c, i, "':' and an index list after the port", s + i);
        } else {
            m->port = HK_DEFAULT_PORT;
            m->default_port = 1;
            hk_warn_add(c->warns, c->pos.file, c->pos.line, c->pos.col + b,
                        "agent: mirror '%s' has no port: Manticore uses %d (the port of a "
                        "later mirror is not shared)", m->host, HK_DEFAULT_PORT);
        }
    }
    if (i >= e)
        return 0;
    i++; /* ':' */
    for (int j = i; j < e; j++)
        if (!index_char((unsigned char)s[j]))
            return at(c, j, "an index list (letters, digits, '-', '_', ',')", s + j);
    return norm_indexes(c, i, s + i, e - i, &m->indexes);
}

hk_mirror_addr *hk_agent_add(hk_agent_line *a)
{
    if (HK_GROW(a->m, a->cap, a->n + 1) < 0)
        return NULL;
    hk_mirror_addr *m = &a->m[a->n++];
    memset(m, 0, sizeof *m);
    return m;
}

int hk_agent_too_many(const hk_agent_line *a) { return a->n >= HK_LINE_MIRRORS_MAX; }

static int parse_mirrors(const cur *c, int b, int e, hk_agent_line *a)
{
    const char *s = c->s;
    while (b < e) {
        int j = b;
        while (j < e && s[j] != '|')
            j++;
        int mb = b, me = j;
        while (mb < me && isspace((unsigned char)s[mb]))
            mb++;
        while (me > mb && isspace((unsigned char)s[me - 1]))
            me--;
        if (me > mb) {
            if (hk_agent_too_many(a))
                return at(c, mb, "at most 100000 mirrors in one agent line", s + mb);
            hk_mirror_addr *m = hk_agent_add(a);
            if (!m)
                return at(c, mb, "less memory use", s + mb);
            if (parse_mirror(c, mb, me, m) < 0)
                return -1;
        }
        b = j + 1;
    }
    return a->n ? 0 : at(c, 0, "one or more hosts or sockets", s);
}

static int opt_int(const cur *c, int i, const char *v, int *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (!*v || *end || x < 0 || x > 1000000)
        return at(c, i, "a non-negative integer option value", v);
    *out = (int)x;
    return 0;
}

static int parse_option(const cur *c, int i, char *opt, hk_agent_line *a)
{
    char *eq = strchr(opt, '=');
    if (!eq || strchr(eq + 1, '='))
        return at(c, i, "an option of the form name=value", opt);
    *eq = '\0';
    char *k = opt, *v = eq + 1;
    for (char *p = opt; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    while (*k == ' ') k++;
    for (char *p = k + strlen(k); p > k && p[-1] == ' '; ) *--p = '\0';
    while (*v == ' ') v++;
    for (char *p = v + strlen(v); p > v && p[-1] == ' '; ) *--p = '\0';
    /* searchd matches option names (and conn's values) by prefix: "blackholes=1" is blackhole */
    if (!strncmp(k, "conn", 4)) {
        if (strncmp(v, "pconn", 5) && strncmp(v, "persistent", 10))
            return at(c, i, "conn=pconn or conn=persistent", v);
        a->persistent = 1;
    } else if (!strncmp(k, "ha_strategy", 11)) {
        snprintf(a->strategy, sizeof a->strategy, "%s", v);
        a->strategy_col = c->pos.col + i;
    } else if (!strncmp(k, "blackhole", 9)) {
        int x = 0;
        if (opt_int(c, i, v, &x) < 0)
            return -1;
        a->blackhole = x != 0;
    } else if (!strncmp(k, "retry_count", 11)) {
        if (opt_int(c, i, v, &a->retry_count) < 0)
            return -1;
    } else {
        return at(c, i, "an option conn, ha_strategy, blackhole or retry_count", k);
    }
    return 0;
}

static int parse_options(const cur *c, int b, int e, hk_agent_line *a)
{
    char opt[256];
    while (b < e) {
        int j = b;
        while (j < e && c->s[j] != ',')
            j++;
        if (j - b >= (int)sizeof opt)
            return at(c, b, "a shorter option", c->s + b);
        memcpy(opt, c->s + b, (size_t)(j - b));
        opt[j - b] = '\0';
        if (parse_option(c, b, opt, a) < 0)
            return -1;
        b = j + 1;
    }
    return 0;
}

/* Empty lists take the next mirror's; the last mirror's falls back to table. */
static int inherit_indexes(hk_agent_line *a, const char *table)
{
    for (int i = a->n - 1; i >= 0; i--) {
        if (a->m[i].indexes && a->m[i].indexes[0])
            continue;
        const char *src = i + 1 < a->n ? a->m[i + 1].indexes : table;
        free(a->m[i].indexes);
        if (!(a->m[i].indexes = strdup(src ? src : "")))
            return -1;
    }
    return 0;
}

int hk_agent_parse(const char *value, const char *table, hk_pos pos, hk_agent_line *out,
                   hk_err *err, hk_warns *warns)
{
    cur c = {value, pos, err, warns};
    memset(out, 0, sizeof *out);
    out->retry_count = -1;
    const char *lb = strchr(value, '[');
    int len = (int)strlen(value), me = lb ? (int)(lb - value) : len;
    const char *rb = strchr(value, ']');
    int rc = 0;
    if (rb && (!lb || rb < lb))
        rc = at(&c, (int)(rb - value), "'[' before ']'", rb);
    else if (lb && strspn(value, " \t") == (size_t)me)
        rc = at(&c, me, "one or more hosts or sockets before '['", lb);
    else if (lb && !rb)
        rc = at(&c, len, "']' to close the options", lb);
    else if (lb && strchr(lb + 1, '['))
        rc = at(&c, (int)(strchr(lb + 1, '[') - value), "only one option block", lb);
    else if (rb && rb[1 + strspn(rb + 1, " \t")] != '\0')
        rc = at(&c, (int)(rb - value) + 1, "end of line after ']'", rb + 1);
    if (rc == 0)
        rc = parse_mirrors(&c, 0, me, out);
    if (rc == 0 && lb)
        rc = parse_options(&c, me + 1, (int)(rb - value), out);
    if (rc == 0 && inherit_indexes(out, table) < 0)
        rc = at(&c, 0, "less memory use", value);
    if (rc < 0) {
        hk_agent_line_free(out);
        return -1;
    }
    return 0;
}

void hk_agent_line_free(hk_agent_line *a)
{
    for (int i = 0; i < a->n; i++) {
        free(a->m[i].host);
        free(a->m[i].indexes);
    }
    free(a->m);
    a->m = NULL;
    a->n = a->cap = 0;
}

const char *hk_mirror_name(const hk_mirror_addr *m, char *buf, int n)
{
    if (m->is_unix)
        snprintf(buf, (size_t)n, "%s", m->host);
    else
        snprintf(buf, (size_t)n, "%s:%d", m->host, m->port);
    return buf;
}
