/* hk_time: number and time-value parsing for config and scenario values. */
#include "hk_time.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int skip_sp(const char *s, int i)
{
    while (s[i] == ' ' || s[i] == '\t')
        i++;
    return i;
}

static int64_t suffix_us(const char *s, int *len)
{
    static const struct { const char *sfx; int64_t us; } tab[] = {
        {"us", 1}, {"ms", 1000}, {"s", HK_SEC}, {"m", 60 * HK_SEC},
        {"h", 3600 * HK_SEC}, {"d", 86400 * HK_SEC}, {"w", 604800 * HK_SEC},
    };
    for (size_t k = 0; k < sizeof tab / sizeof tab[0]; k++) {
        size_t n = strlen(tab[k].sfx);
        if (strncmp(s, tab[k].sfx, n) == 0 && !isalnum((unsigned char)s[n])) {
            *len = (int)n;
            return tab[k].us;
        }
    }
    return 0;
}

int hk_time_parse(const char *s, int64_t unit_us, int64_t *us, int *bad, const char **what)
{
    int i = skip_sp(s, 0);
    if (!isdigit((unsigned char)s[i]) && s[i] != '.') {
        *bad = i;
        *what = "a number, optionally with a suffix us, ms, s, m, h, d or w";
        return -1;
    }
    char *end;
    double v = strtod(s + i, &end);
    i = (int)(end - s);
    int64_t unit = unit_us;
    if (isalpha((unsigned char)s[i])) {
        int n = 0;
        unit = suffix_us(s + i, &n);
        if (!unit) {
            *bad = i;
            *what = "a time suffix: us, ms, s, m, h, d or w";
            return -1;
        }
        i += n;
    }
    i = skip_sp(s, i);
    if (s[i] != '\0') {
        *bad = i;
        *what = "end of the time value";
        return -1;
    }
    double r = v * (double)unit;
    if (!isfinite(r) || r > (double)HK_TIME_MAX_US) {
        *bad = 0;
        *what = "a time value below 317 years";
        return -1;
    }
    *us = (int64_t)llround(r);
    return 0;
}

int hk_int_parse(const char *s, long long min, long long max, long long *out, int *bad,
                 const char **what)
{
    int i = skip_sp(s, 0);
    int neg = s[i] == '-';
    int d0 = i + neg;
    if (!isdigit((unsigned char)s[d0])) {
        *bad = i;
        *what = "an integer";
        return -1;
    }
    unsigned long long v = 0, lim = neg ? (unsigned long long)LLONG_MAX + 1 : LLONG_MAX;
    for (i = d0; isdigit((unsigned char)s[i]); i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (lim - d) / 10) {
            *bad = d0 - neg;
            *what = neg ? "a larger integer" : "a smaller integer";
            return -1;
        }
        v = v * 10 + d;
    }
    int j = skip_sp(s, i);
    if (s[j] != '\0') {
        *bad = i;
        *what = "end of the integer";
        return -1;
    }
    long long x = neg ? (v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)v)
                      : (long long)v;
    if (x < min || x > max) {
        *bad = d0 - neg;
        *what = x < min ? "a larger integer" : "a smaller integer";
        return -1;
    }
    *out = x;
    return 0;
}

int hk_real_parse(const char *s, double min, double max, double *out, int *bad,
                  const char **what)
{
    int i = skip_sp(s, 0);
    int k = i + (s[i] == '-' || s[i] == '+');
    if (!isdigit((unsigned char)s[k]) && !(s[k] == '.' && isdigit((unsigned char)s[k + 1]))) {
        *bad = i;
        *what = "a number";
        return -1;
    }
    char *end;
    double v = strtod(s + i, &end);
    int j = skip_sp(s, (int)(end - s));
    if (s[j] != '\0') {
        *bad = (int)(end - s);
        *what = "end of the number";
        return -1;
    }
    if (!isfinite(v) || v < min || v > max) {
        *bad = i;
        *what = !isfinite(v) ? "a finite number" : v < min ? "a larger number" : "a smaller number";
        return -1;
    }
    *out = v;
    return 0;
}
