/* hk_expect: a scenario's claims about its own results, written so that a
 * run can check them (`hasim SCENARIO --check`, and CI on every shipped
 * scenario). One claim per `claim =` line of an `expect { }` section:
 *   claim = [RUN:] ASSERTION
 *   RUN       = VARIANT | STRATEGY | VARIANT/STRATEGY | all | all/STRATEGY (default: the scenario's)
 *   ASSERTION = finding KIND [MIRROR]          at least one finding of that kind (on that mirror)
 *             | no finding [KIND] [MIRROR]     none (of that kind, on that mirror)
 *             | share MIRROR [from T] [to T] OP VALUE     its share of its line (master 0)
 *             | readmit MIRROR OP TIME | readmit MIRROR never   share back after its fault
 *             | failed OP PERCENT%             failed and partial queries
 *             | p50 | p99 | p999 OP TIME       answered queries' latency percentile
 *             | mean OP TIME                     ... or mean
 *             | converged OP TIME | converged static | converged never
 *             | connects MIRROR OP VALUE       connections opened per attempt on it (all
 *                                              masters: 1 without a pool, ~0 with one)
 *   OP        = < | <= | > | >= | = VALUE +- TOLERANCE
 * e.g.  claim = manticore-fixed: finding starved box2:9312
 *       claim = sphinx2: share box1:9312 = 0.26 +- 0.02 */
#ifndef HK_EXPECT_H
#define HK_EXPECT_H

#include <stdint.h>
#include "hk_conf.h"
#include "hk_err.h"

typedef enum hk_xkind {
    HK_X_FINDING, HK_X_NO_FINDING, HK_X_SHARE, HK_X_READMIT, HK_X_FAILED, HK_X_P99,
    HK_X_CONVERGED, HK_X_CONNECTS
} hk_xkind;

enum { HK_XOP_LT, HK_XOP_LE, HK_XOP_GT, HK_XOP_GE, HK_XOP_EQ, HK_XOP_NEVER, HK_XOP_STATIC };

#define HK_X_ALL (-2)            /* every variant */

typedef struct hk_claim {
    int variant;                 /* -1 = the scenario's own; HK_X_ALL = each of them */
    int strategy;                /* -1 = as configured */
    hk_xkind kind;
    char finding[24];            /* finding kind ("" = any) */
    char mirror[280];            /* host:port ("" = none) */
    int op;
    double value, tol;           /* times in seconds, shares and percents as written */
    double from_s, to_s;         /* share window (to_s < 0: the end) */
    double q;                    /* the percentile of HK_X_P99 (0.5, 0.99, 0.999; -1 the mean) */
    int line, col;
    char text[300];
} hk_claim;

/* The claims of c's `expect` section (none: *n = 0). -1 with err at the claim's position. */
int hk_expect_parse(const hk_conf *c, hk_claim **out, int *n, hk_err *err);
/* "< 0.02", "never", "= 0.26 +- 0.02": the claim's test, for messages. */
const char *hk_expect_op_text(const hk_claim *c, char *buf, int n);
/* Does got pass the claim's test? (NaN never passes.) */
int hk_expect_holds(const hk_claim *c, double got);

#endif
