/* hk_time: numbers and time values as configs, scenarios and command lines
 * write them. A time is a number with an optional suffix us, ms, s, m, h, d,
 * w (Manticore's syntax); a bare number is in the unit the directive's docs
 * give. All core times are int64 microseconds, at most HK_TIME_MAX_US, so sums
 * of two never overflow. Every parser rejects NaN, infinities and values out
 * of its range, and says where and what was expected. */
#ifndef HK_TIME_H
#define HK_TIME_H

#include <stdint.h>

#define HK_US 1LL
#define HK_MS 1000LL
#define HK_SEC 1000000LL
#define HK_TIME_MAX_US 10000000000000000LL   /* 10^16 µs, about 317 years */

/* Parse s (leading/trailing spaces allowed) into *us. Fractions are allowed
 * ("0.2ms"). Returns 0, or -1 with *bad set to the byte offset of the first
 * character that does not fit and *what to what was expected there. */
int hk_time_parse(const char *s, int64_t unit_us, int64_t *us, int *bad, const char **what);

/* Parse a decimal integer (whole string) within [min, max]. Same error contract. */
int hk_int_parse(const char *s, long long min, long long max, long long *out, int *bad,
                 const char **what);
/* Parse a finite decimal number (whole string) within [min, max]. Same error contract. */
int hk_real_parse(const char *s, double min, double max, double *out, int *bad,
                  const char **what);

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian, m 1..12). */
int64_t hk_days_from_civil(int64_t y, int m, int d);
/* Days in month m (1-12) of year y (the Gregorian leap rule). */
int hk_month_days(int64_t y, int m);
/* 1 if [b, e) spells a decimal number (digits, '.', a sign, an exponent): strtod also reads
 * hex ("0x10", "0x1p1"), inf and nan, which no config or trace means. */
int hk_is_decimal(const char *b, const char *e);
/* "2026-12-02T10:00:00Z" (optional .fff fraction; 'T' or ' '; 'Z' or nothing = UTC) into
 * microseconds since the epoch; years 1970..2200. Same error contract. */
int hk_iso_parse(const char *s, int64_t *us, int *bad, const char **what);
/* The inverse, "2026-12-02T10:00:00.000Z", into a caller buffer (at least 32 bytes). */
const char *hk_iso_format(int64_t us, char *buf, int n);

#endif
