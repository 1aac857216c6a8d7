/* hk_fmt: printf's fixed-point and integer formats, exact, without printf (see hk_fmt.h).
 * x * 10^N is rounded once to a double; below 2^31 that error is under 2^-22 of a unit, so
 * the nearest integer to the double is the nearest to the exact value unless the exact value
 * lies within 1e-6 of a half (where printf's round-half-even on the exact binary value
 * decides): those, huge values, infinities and NaN go to snprintf. */
#include "hk_fmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

static const double pow10_tab[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

int hk_fmt_u64(char *buf, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return n;
}

int hk_fmt_fixed(char *buf, double x, int decimals)
{
    if (decimals < 0 || decimals > 9)
        return snprintf(buf, HK_FMT_MAX, "%.*f", decimals < 0 ? 0 : decimals, x);
    double a = fabs(x), v = a * pow10_tab[decimals], frac = v - floor(v);
    if (!(v < 2147483648.0) || fabs(frac - 0.5) < 1e-6)
        return snprintf(buf, HK_FMT_MAX, "%.*f", decimals, x);
    uint64_t r = (uint64_t)floor(v + 0.5), p = (uint64_t)pow10_tab[decimals];
    int n = 0;
    if (signbit(x))
        buf[n++] = '-'; /* as printf: -0.0 and tiny negatives keep their sign */
    n += hk_fmt_u64(buf + n, r / p);
    if (decimals) {
        buf[n++] = '.';
        uint64_t f = r % p;
        for (int i = decimals - 1; i >= 0; i--) {
            buf[n + i] = (char)('0' + f % 10);
            f /= 10;
        }
        n += decimals;
        buf[n] = '\0';
    }
    return n;
}
