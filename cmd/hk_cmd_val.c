/* hk_cmd_val: the checks behind every option's value — numbers in range, times, and the
 * comma lists of strategy, variant and finding names (see hk_cmd.h). */
#include "hk_cmd.h"

#include <stdio.h>
#include <string.h>
#include "hk_find.h"
#include "hk_keys.h"
#include "hk_strat.h"
#include "hk_time.h"
#include "hk_variant.h"
#include "hk_watch.h"

int hk_cmd_int(const char *prog, const char *opt, const char *v, long long min, long long max,
               long long *out)
{
    int bad;
    const char *what;
    if (hk_int_parse(v, min, max, out, &bad, &what) == 0)
        return 0;
    fprintf(stderr, "%s: %s: expected %s from %lld to %lld, got '%s'\n", prog, opt, what, min,
            max, v);
    return -1;
}

/* One comma-separated list of names from name_at (exact names only; `all` = the first nall when
 * nall > 0, `every` = all of them when every_ok), each once, into ids; the count or -1. */
static int name_list(const char *prog, const char *opt, const char *v,
                     const char *(*name_at)(int), const char *known, int nall, int every_ok,
                     int *ids, int max)
{
    const char *names[64];
    int nn = 0, n = 0;
    while (nn < 63 && name_at(nn)) {
        names[nn] = name_at(nn);
        nn++;
    }
    names[nn] = NULL;
    for (const char *p = v; ; ) {
        size_t l = strcspn(p, ",");
        char w[64];
        snprintf(w, sizeof w, "%.*s", (int)(l < sizeof w - 1 ? l : sizeof w - 1), p);
        int lo = -1, hi = -1;
        if ((nall > 0 && !strcmp(w, "all")) || (every_ok && !strcmp(w, "every"))) {
            lo = 0;
            hi = w[0] == 'a' ? nall : nn;
        }
        for (int i = 0; lo < 0 && i < nn; i++)
            if (!strcmp(w, names[i])) {
                lo = i;
                hi = i + 1;
            }
        if (lo < 0) {
            const char *near = hk_nearest(w, names);
            fprintf(stderr, "%s: %s: unknown name '%s'%s%s%s; expected a comma list of %s%s\n",
                    prog, opt, w, near ? " (did you mean '" : "", near ? near : "",
                    near ? "'?)" : "", every_ok ? "names, all (searchd's four) or every (with "
                    "the hakarma extensions): " : nall > 0 ? "names or all: " : "names: ", known);
            return -1;
        }
        for (int i = lo; i < hi; i++) {
            for (int j = 0; j < n; j++)
                if (ids[j] == i) {
                    fprintf(stderr, "%s: %s: '%s' is given twice in '%s'\n", prog, opt,
                            names[i], v);
                    return -1;
                }
            if (n == max)
                return -1;
            ids[n++] = i;
        }
        if (!p[l])
            return n;
        p += l + 1;
    }
}

int hk_cmd_strategies(const char *prog, const char *opt, const char *v, int *ids, int max)
{
    return name_list(prog, opt, v, hk_strat_name_at, hk_strat_all_names(), HK_STRAT_SEARCHD_N, 1,
                     ids, max);
}

/* The finding kinds, then "severe" (every severe kind), for --fail-on. */
static const char *kind_at(int i)
{
    const char *k = hk_find_kind(i);
    return k ? k : hk_find_kind(i - 1) ? "severe" : NULL;
}

int hk_cmd_kinds(const char *prog, const char *opt, const char *v)
{
    int ids[64];
    return name_list(prog, opt, v, kind_at, "finding kinds (failing, slow, starved, locked, ...) "
                     "or severe", 0, 0, ids, 64) < 0 ? -1 : 0;
}

/* The watch's finding kinds, then "severe". */
static const char *wkind_at(int i)
{
    const char *k = hk_wkind_name(i);
    return k ? k : hk_wkind_name(i - 1) ? "severe" : NULL;
}

int hk_cmd_wkinds(const char *prog, const char *opt, const char *v, unsigned *bits)
{
    int ids[64], n = name_list(prog, opt, v, wkind_at, "failing, dead, stall, stuck, slow, "
                               "starved, locked, takeover, flood, herding or severe", 0, 0, ids,
                               64);
    *bits = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < HK_W_N; k++)
            if (ids[i] == k || (ids[i] == HK_W_N && hk_wkind_severe(k)))
                *bits |= 1u << k;
    return n < 0 ? -1 : 0;
}

int hk_cmd_variants(const char *prog, const char *opt, const char *v, int *ids, int max)
{
    return name_list(prog, opt, v, hk_variant_name_at, hk_variant_names(), HK_VAR_N, 0, ids, max);
}

int hk_cmd_real(const char *prog, const char *opt, const char *v, double min, double max,
                double *out)
{
    int bad;
    const char *what;
    if (hk_real_parse(v, min, max, out, &bad, &what) == 0)
        return 0;
    fprintf(stderr, "%s: %s: expected %s from %g to %g, got '%s'\n", prog, opt, what, min, max,
            v);
    return -1;
}

int hk_cmd_time(const char *prog, const char *opt, const char *v, int64_t unit_us, int64_t *out)
{
    int bad;
    const char *what;
    if (hk_time_parse(v, unit_us, out, &bad, &what) == 0 && *out > 0)
        return 0;
    fprintf(stderr, "%s: %s: expected a positive time such as 90s, 500ms or 10m, got '%s'\n",
            prog, opt, v);
    return -1;
}

/* One name of a list parser. */
static int one(int n, const int *ids, const char *prog, const char *opt, const char *v, int *id)
{
    if (n < 0)
        return -1;
    if (n != 1) {
        fprintf(stderr, "%s: %s: expected one name here, got '%s'\n", prog, opt, v);
        return -1;
    }
    *id = ids[0];
    return 0;
}

int hk_cmd_variant(const char *prog, const char *opt, const char *v, int *id)
{
    int ids[HK_VAR_N];
    return one(hk_cmd_variants(prog, opt, v, ids, HK_VAR_N), ids, prog, opt, v, id);
}

int hk_cmd_strategy(const char *prog, const char *opt, const char *v, int *id)
{
    int ids[HK_STRAT_N];
    return one(hk_cmd_strategies(prog, opt, v, ids, HK_STRAT_N), ids, prog, opt, v, id);
}

int hk_cmd_table_map(const char *prog, const char *opt, const char *v, const char **list, int *n,
                     int max)
{
    const char *eq = strchr(v, '=');
    if (*n < max && eq && eq != v && eq[1] && strlen(v) < 250) {
        list[(*n)++] = v;
        return 0;
    }
    fprintf(stderr, "%s: %s: expected LOG=CONFIG (at most %d), got '%s'\n", prog, opt, max, v);
    return -1;
}
