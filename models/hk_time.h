/* hk_time: time values as Manticore writes them in its config: a number with
 * an optional suffix us, ms, s, m, h, d, w; a bare number is in the unit the
 * directive's docs give. All core times are int64 microseconds. */
#ifndef HK_TIME_H
#define HK_TIME_H

#include <stdint.h>

#define HK_US 1LL
#define HK_MS 1000LL
#define HK_SEC 1000000LL

/* Parse s (leading/trailing spaces allowed) into *us. Fractions are allowed
 * ("0.2ms"). Returns 0, or -1 with *bad set to the byte offset of the first
 * character that does not fit and *what to what was expected there. */
int hk_time_parse(const char *s, int64_t unit_us, int64_t *us, int *bad, const char **what);

/* Parse a non-negative decimal integer (whole string). Same error contract. */
int hk_int_parse(const char *s, long long min, long long max, long long *out, int *bad,
                 const char **what);

#endif
