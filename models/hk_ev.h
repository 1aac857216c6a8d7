/* hk_ev: the outcome of one attempt on a mirror, in Manticore's order
 * (AgentStats_e), plus the ERROR reply searchd records nowhere. The
 * dashboards count the first HK_EV_N; the timeline counts all of them. */
#ifndef HK_EV_H
#define HK_EV_H

typedef enum hk_ev {
    HK_EV_QUERY_TIMEOUT, HK_EV_CONNECT_TIMEOUT, HK_EV_CONNECT_FAILURE, HK_EV_NETWORK_ERROR,
    HK_EV_WRONG_QUERY, HK_EV_WRONG_REPLY, HK_EV_UNEXPECTED_CLOSE, HK_EV_WARNING, HK_EV_SUCCESS,
    HK_EV_N,
    HK_EV_REMOTE_ERROR = HK_EV_N, /* ERROR/RETRY reply: searchd records nothing */
    HK_EV_ALL                     /* every kind above, the ERROR reply included */
} hk_ev;

/* An answer: a success or a reply with a warning (a partial result). */
static inline int hk_ev_ok(int ev) { return ev == HK_EV_SUCCESS || ev == HK_EV_WARNING; }
/* What the kind is in an operator's words ("ERROR replies", "query timeouts"). */
const char *hk_ev_words(int ev);
/* Its name in every file and series hakarma writes (outcomes.csv, the metrics): query_timeout,
 * connect_timeout, connect_failure, network_error, wrong_query, wrong_reply,
 * unexpected_close, warning, ok, remote_error; "cancelled" for -1 (a query given up). */
const char *hk_ev_name(int ev);

#endif
