/* hk_bundle: a scenario made self-contained for another machine — DIR/bundle/ holds the
 * scenario (its text with every file it names rewritten to a path inside the bundle) and a
 * copy of each of those files (bundle/files/K-NAME), so the folder can be copied to a batch
 * cluster's volume as it is and run there, frozen against later edits of the originals. */
#ifndef HK_BUNDLE_H
#define HK_BUNDLE_H

#include <stddef.h>
#include "hk_scnload.h"

#define HK_BUNDLE_SCENARIO "bundle/scenario.scn"   /* the scenario, relative to DIR */

/* Write DIR/bundle/ for l (a loaded scenario); -1 with err. */
int hk_bundle_write(const hk_loaded *l, const char *dir, hk_err *err);
/* text with each whole-token occurrence of names[k] replaced by repl[k], into out (a new
 * buffer the caller frees); NULL when out of memory. A token is bounded by the scenario
 * language's separators ( ( = , ) whitespace ), so a name inside another is left alone. */
char *hk_bundle_rewrite(const char *text, const char *const *names, const char *const *repl,
                        int n);

#endif
