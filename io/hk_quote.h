/* hk_quote: a name written into a file another program reads, quoted for that reader — a
 * POSIX shell, YAML (and Kubernetes' $(VAR) expansion inside a container's command), gnuplot —
 * or refused where no quoting is safe: a name with a control character (a newline ends a
 * `#SBATCH` directive, a YAML scalar or a shell line whatever the quotes) or that is not UTF-8
 * (YAML must be). CSV goes through libcsv (hk_csv), JSON through jansson, never here. */
#ifndef HK_QUOTE_H
#define HK_QUOTE_H

#include "hk_buf.h"
#include "hk_err.h"

/* 0 when s holds no control character (below 0x20, or 0x7f) and is valid UTF-8; else -1 with
 * err naming what (e.g. "--out"), the offending byte and its offset. */
int hk_name_check(const char *what, const char *s, hk_err *err);
/* s single-quoted for a POSIX shell ('\'' for a quote), appended to b. */
void hk_quote_sh(hk_buf *b, const char *s);
/* s as a YAML single-quoted scalar ('' for a quote), appended to b. k8s: also '$' doubled, so
 * Kubernetes' $(VAR) expansion of a container's command leaves the name as it is. */
void hk_quote_yaml(hk_buf *b, const char *s, int k8s);
/* s inside a gnuplot single-quoted string ('' for a quote) into out (n bytes); -1 if it does
 * not fit. */
int hk_quote_gp(const char *s, char *out, size_t n);

#endif
