/* hasim_initstart: `hasim init --searchd-log FILE` — when the master last loaded its config
 * before the run, from searchd's own log ("[Fri Dec  4 17:53:08.926 2026] [18392] accepting
 * connections", 2.2.11 and Manticore alike). Each agent line takes its weight-recompute
 * timestamp then, so this fixes the seconds at which the run re-weights (`sim { started }`). */
#include "hasim_init.h"

#include <stdlib.h>
#include <string.h>
#include "hk_file.h"
#include "hk_qlog.h"

#define START_LINE "accepting connections"

/* The time of the last start line at or before before_s (seconds since the epoch): 0 and
 * *started_s, or -1 with e naming the file (and line) and what was wanted. */
int initstart_read(const char *path, double before_s, double *started_s, hk_err *e)
{
    char *buf;
    size_t len;
    if (hk_file_read(path, &buf, &len, e) < 0)
        return -1;
    int line = 0, found = 0, later = 0;
    for (char *p = buf, *nl; p < buf + len; p = nl + 1) {
        line++;
        if (!(nl = memchr(p, '\n', (size_t)(buf + len - p))))
            nl = buf + len;
        *nl = '\0'; /* hk_file_read leaves a byte for the terminator past len */
        if (!strstr(p, START_LINE))
            continue;
        int n;
        int64_t us = p[0] == '[' ? hk_qlog_time(p + 1, &n) : -1;
        if (us < 0) {
            free(buf);
            return hk_err_set(e, path, line, 1, "expected '[Www Mmm dd hh:mm:ss.mmm yyyy]' "
                              "before '" START_LINE "'");
        }
        if ((double)us / 1e6 <= before_s) {
            *started_s = (double)us / 1e6;
            found = 1;
        } else
            later = 1;
    }
    free(buf);
    if (!found)
        return hk_err_set(e, path, 0, 0, "no '" START_LINE "' line %s: searchd's start is "
                          "not in this log (rotated?)", later ? "before the run's start" : "");
    return 0;
}
