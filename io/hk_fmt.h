/* hk_fmt: numbers as text for the output files, faster than printf and byte for byte what
 * printf writes ("%.Nf", "%llu"): a long timeline is mostly numbers, and printf's float path
 * costs a large share of a short run. Caller-owned buffers; each returns the length written. */
#ifndef HK_FMT_H
#define HK_FMT_H

#include <stddef.h>
#include <stdint.h>

#define HK_FMT_MAX 64            /* enough for any value of either, with its NUL */

/* As snprintf(buf, HK_FMT_MAX, "%.*f", decimals, x), decimals 0..9. */
int hk_fmt_fixed(char *buf, double x, int decimals);
/* As snprintf(buf, HK_FMT_MAX, "%" PRIu64, v). */
int hk_fmt_u64(char *buf, uint64_t v);

#endif
