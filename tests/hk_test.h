/* hk_test: cmocka includes and small helpers shared by the unit tests. */
#ifndef HK_TEST_H
#define HK_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <string.h>
#include "hk_scn.h"

/* Hex text ("0a1b...") into out: the byte count. For captured wire bytes. */
static inline size_t hk_test_unhex(const char *h, uint8_t *out)
{
    size_t n = 0;
    for (; h[0] && h[1]; h += 2) {
        unsigned v;
        sscanf(h, "%2x", &v);
        out[n++] = (uint8_t)v;
    }
    return n;
}

#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

/* The config text builds a cluster in dialect d, or the test fails naming line:column. */
static inline hk_cluster *hk_test_cluster(const char *text, hk_dialect d)
{
    hk_conf *c = NULL;
    hk_cluster *cl = NULL;
    hk_err e;
    if (hk_conf_parse(text, strlen(text), "t.conf", &c, &e) < 0 ||
        hk_cluster_from_conf(c, NULL, d, &cl, &e, NULL) < 0)
        fail_msg("config error %d:%d %s", e.line, e.col, e.msg);
    hk_conf_free(c);
    return cl;
}

/* The scenario text builds (Manticore's dialect), or the test fails naming line:column. */
static inline hk_scn *hk_test_scn(const char *text)
{
    hk_conf *c = NULL;
    hk_err e;
    hk_scn *s = NULL;
    if (hk_conf_parse(text, strlen(text), "t.scn", &c, &e) < 0 ||
        hk_scn_build(c, NULL, HK_DIALECT_MANTICORE, &s, &e, NULL) < 0)
        fail_msg("scenario error %d:%d %s", e.line, e.col, e.msg);
    hk_conf_free(c);
    return s;
}

#endif
