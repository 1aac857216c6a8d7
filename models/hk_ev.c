/* hk_ev: outcome kinds in words (see hk_ev.h). */
#include "hk_ev.h"

const char *hk_ev_words(int ev)
{
    static const char *w[HK_EV_ALL] = {
        "query timeouts", "connect timeouts", "refused or failed connects", "network errors",
        "wrong queries", "wrong replies", "unexpected closes", "replies with a warning",
        "successes", "ERROR replies"};
    return ev >= 0 && ev < HK_EV_ALL ? w[ev] : "?";
}
