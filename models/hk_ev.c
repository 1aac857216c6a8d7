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

const char *hk_ev_name(int ev)
{
    static const char *const n[HK_EV_ALL] = {
        "query_timeout", "connect_timeout", "connect_failure", "network_error", "wrong_query",
        "wrong_reply", "unexpected_close", "warning", "ok", "remote_error"};
    return ev >= 0 && ev < HK_EV_ALL ? n[ev] : "cancelled";
}
