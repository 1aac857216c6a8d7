/* hk_ports: ephemeral ports held per destination, a second at a time (see hk_ports.h). */
#include "hk_ports.h"
#include <stdlib.h>
#include <string.h>

int hk_ports_init(hk_ports *p, int ports, int time_wait_s)
{
    memset(p, 0, sizeof *p);
    if (time_wait_s < 1)
        time_wait_s = 1;
    if (time_wait_s > HK_TIME_WAIT_MAX_S)
        time_wait_s = HK_TIME_WAIT_MAX_S;
    p->per_sec = calloc((size_t)time_wait_s, sizeof *p->per_sec);
    if (!p->per_sec)
        return -1;
    p->time_wait_s = time_wait_s;
    p->ports = ports < 1 ? 1 : ports;
    p->first_us = -1;
    p->first_out_us = -1;
    return 0;
}

void hk_ports_free(hk_ports *p)
{
    free(p->per_sec);
    memset(p, 0, sizeof *p);
}

/* Move the ring to second s: the seconds that fell out give their ports back. */
static void advance(hk_ports *p, int64_t s)
{
    if (s <= p->sec)
        return;
    int64_t n = s - p->sec;
    if (n >= p->time_wait_s) {
        memset(p->per_sec, 0, (size_t)p->time_wait_s * sizeof *p->per_sec);
        p->held = 0;
    } else {
        for (int64_t k = 1; k <= n; k++) {
            uint32_t *c = &p->per_sec[(p->sec + k) % p->time_wait_s];
            p->held -= *c;
            *c = 0;
        }
    }
    p->sec = s;
}

int hk_ports_connect(hk_ports *p, int64_t now_us)
{
    if (p->first_us < 0)
        p->first_us = now_us;
    advance(p, now_us / 1000000);
    if (p->held >= p->ports) {
        if (p->first_out_us < 0)
            p->first_out_us = now_us;
        p->refused++;
        return -1;
    }
    p->per_sec[p->sec % p->time_wait_s]++;
    p->held++;
    return 0;
}

double hk_ports_rate(hk_ports *p, int64_t now_us)
{
    advance(p, now_us / 1000000);
    return (double)p->held / p->time_wait_s;
}

double hk_ports_out_rate(const hk_ports *p)
{
    if (p->first_out_us < 0)
        return 0;
    double span = (double)(p->first_out_us - p->first_us) / 1e6;
    if (span > p->time_wait_s)
        span = p->time_wait_s;
    return p->ports / (span > 1e-3 ? span : 1e-3);
}
