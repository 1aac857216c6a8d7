/* hk_time: number and time-value parsing for config and scenario values. */
#include "hk_time.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
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
    if (!hk_is_decimal(s + i, end)) {
        *bad = i;
        *what = "a decimal number (no hex), optionally with a suffix us, ms, s, m, h, d or w";
        return -1;
    }
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
    *out = 0;
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
    *out = 0;
    int i = skip_sp(s, 0);
    int k = i + (s[i] == '-' || s[i] == '+');
    if (!isdigit((unsigned char)s[k]) && !(s[k] == '.' && isdigit((unsigned char)s[k + 1]))) {
        *bad = i;
        *what = "a number";
        return -1;
    }
    char *end;
    double v = strtod(s + i, &end);
    if (!hk_is_decimal(s + i, end)) {
        *bad = i;
        *what = "a decimal number (no hex)";
        return -1;
    }
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

int hk_month_days(int64_t y, int m)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m < 1 || m > 12 ? 0 : days[m - 1] + (m == 2 && leap);
}

int hk_is_decimal(const char *b, const char *e)
{
    if (b == e)
        return 0;
    for (const char *p = b; p < e; p++)
        if (!isdigit((unsigned char)*p) && !strchr(".+-eE", *p))
            return 0;
    return 1;
}

int64_t hk_days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* n digits at s[*i] into *v; -1 if they are not all digits. */
static int digits(const char *s, int *i, int n, int *v)
{
    *v = 0;
    for (int k = 0; k < n; k++, (*i)++) {
        if (!isdigit((unsigned char)s[*i]))
            return -1;
        *v = *v * 10 + (s[*i] - '0');
    }
    return 0;
}

int hk_iso_parse(const char *s, int64_t *us, int *bad, const char **what)
{
    int i = skip_sp(s, 0), y, mo, d, h, mi, se, frac = 0, scale = 1000000;
    static const char *fmt = "a UTC time like 2026-12-02T10:00:00Z (years 1970 to 2200)";
    *what = fmt;
    *bad = i;
    if (digits(s, &i, 4, &y) < 0 || s[i++] != '-' || digits(s, &i, 2, &mo) < 0 ||
        s[i++] != '-' || digits(s, &i, 2, &d) < 0 || (s[i] != 'T' && s[i] != ' '))
        return -1;
    i++;
    if (digits(s, &i, 2, &h) < 0 || s[i++] != ':' || digits(s, &i, 2, &mi) < 0 ||
        s[i++] != ':' || digits(s, &i, 2, &se) < 0)
        return -1;
    if (s[i] == '.')
        for (i++; isdigit((unsigned char)s[i]); i++)
            if (scale > 1) {
                scale /= 10;
                frac += (s[i] - '0') * scale;
            }
    if (s[i] == 'Z')
        i++;
    i = skip_sp(s, i);
    if (s[i] || y < 1970 || y > 2200 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
        mi > 59 || se > 60) {
        *bad = i;
        return -1;
    }
    int64_t days = hk_days_from_civil(y, mo, d);
    *us = ((days * 86400 + h * 3600 + mi * 60 + se) * 1000000) + frac;
    return 0;
}

const char *hk_iso_format(int64_t us, char *buf, int n)
{
    int64_t secs = us >= 0 ? us / 1000000 : -((-us + 999999) / 1000000);
    int ms = (int)((us - secs * 1000000) / 1000);
    int64_t z = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
    int64_t rem = secs - z * 86400;
    z += 719468; /* civil from days (Howard Hinnant's algorithm) */
    int64_t era = (z >= 0 ? z : z - 146096) / 146097, doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    int d = (int)(doy - (153 * mp + 2) / 5 + 1), m = (int)(mp < 10 ? mp + 3 : mp - 9);
    int64_t y = yoe + era * 400 + (m <= 2);
    snprintf(buf, (size_t)n, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", (int)y, m, d,
             (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60), ms);
    return buf;
}
