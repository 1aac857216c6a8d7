/* hk_evvar: the variant the evidence says (see hk_evvar.h). */
#include "hk_evvar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_file.h"
#include "hk_statjson.h"
#include "hk_variant.h"

#define BANNER "starting daemon version '"

int hk_evvar_status(const hk_status_file *st, char *why, size_t n)
{
    if (st->version[0]) {
        int v = strstr(st->version, "anticore") || strncmp(st->version, "2.", 2)
                    ? HK_VAR_MANTICORE : HK_VAR_SPHINX2;
        snprintf(why, n, "SHOW STATUS's version is '%.80s'", st->version);
        return v;
    }
    if (st->layout == HK_LAYOUT_SPHINX2) {
        snprintf(why, n, "its SHOW AGENT STATUS has Sphinx 2.2.11's layout");
        return HK_VAR_SPHINX2;
    }
    if (st->nhosts && !st->h[0].by_agent) {
        snprintf(why, n, "its SHOW AGENT STATUS has Manticore's layout");
        return HK_VAR_MANTICORE;
    }
    return -1;
}

/* What one line of searchd's log says: 1 Manticore (why filled), 2 a Sphinx 2-style listener
 * line, 0 nothing. */
static int log_line(const char *p, char *why, size_t n)
{
    const char *b = strstr(p, BANNER);
    if (b) {
        b += strlen(BANNER);
        const char *end = strchr(b, '\'');
        int len = end ? (int)(end - b) : (int)strlen(b);
        snprintf(why, n, "searchd's log says \"starting daemon version '%.*s'\"", len > 80 ? 80 : len,
                 b);
        return 1;
    }
    const char *l = strstr(p, "] listening on ");
    if (!l)
        return 0;
    if (strstr(l, " for mysql") || strstr(l, " for sphinx") || strstr(l, " for http")) {
        snprintf(why, n, "searchd's log lists its listeners as Manticore does ('%.60s')", l + 2);
        return 1;
    }
    return 2;
}

int hk_evvar_searchd_log(const char *path, char *why, size_t n, hk_err *e)
{
    char *buf;
    size_t len;
    if (hk_file_read(path, &buf, &len, e) < 0)
        return -2;
    int v = -1, plain = 0;
    for (char *p = buf, *nl; p < buf + len && v < 0; p = nl + 1) {
        if (!(nl = memchr(p, '\n', (size_t)(buf + len - p))))
            nl = buf + len;
        *nl = '\0'; /* hk_file_read leaves a byte for the terminator past len */
        int said = log_line(p, why, n);
        if (said == 1)
            v = HK_VAR_MANTICORE;
        plain += said == 2;
    }
    free(buf);
    if (v < 0 && plain) {
        snprintf(why, n, "searchd's log lists its listeners with no protocol and writes no "
                 "version banner, as Sphinx 2.2.11 does");
        v = HK_VAR_SPHINX2;
    }
    return v;
}

int hk_evvar_decide(int given, const hk_status_file *st, const char *searchd_log, int fallback,
                    const char *fallback_why, char *why, size_t n, hk_err *e)
{
    int v = given;
    snprintf(why, n, "as --variant says");
    if (v < 0 && st)
        v = hk_evvar_status(st, why, n);
    if (v < 0 && searchd_log && (v = hk_evvar_searchd_log(searchd_log, why, n, e)) == -2)
        return -1;
    if (v < 0) {
        v = fallback;
        snprintf(why, n, "%s", fallback_why);
    }
    return v;
}

int hk_evvar_read_status(const char *path, char **buf, size_t *len, hk_status_file *st, hk_err *e)
{
    if (!hk_statjson_is(*buf, *len))
        return hk_statread(*buf, *len, path, st, e);
    char *tsv, name[300];
    size_t n;
    if (hk_statjson(*buf, *len, path, &tsv, &n, e) < 0)
        return -1;
    free(*buf);
    *buf = tsv;
    *len = n;
    snprintf(name, sizeof name, "%s data row", path);
    return hk_statread(tsv, n, name, st, e);
}

int hk_evvar_load_status(const char *path, hk_status_file *st, hk_err *e)
{
    char *buf;
    size_t len;
    memset(st, 0, sizeof *st);
    if (hk_file_read(path, &buf, &len, e) < 0)
        return -1;
    int r = hk_evvar_read_status(path, &buf, &len, st, e);
    free(buf);
    return r;
}
