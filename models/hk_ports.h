/* hk_ports: the ephemeral ports a connecting side has for one destination
 * (address:port). Each connection it closes first holds its port in
 * TIME_WAIT for time_wait (Linux: 60 s, fixed); with `ports` ports in the
 * range (Linux's default 32768-60999: 28,232) it can open at most
 * ports / time_wait connections a second to one destination for long
 * (about 470/s), and a connect beyond that fails at once (EADDRNOTAVAIL:
 * searchd's "connect() failed"). Counted in whole seconds: the ports taken
 * in the last time_wait seconds, a ring of one counter a second, so the
 * memory is fixed whatever the rate. */
#ifndef HK_PORTS_H
#define HK_PORTS_H

#include <stdint.h>

#define HK_PORTS_LINUX 28232      /* net.ipv4.ip_local_port_range 32768 60999 */
#define HK_TIME_WAIT_LINUX_S 60   /* TCP_TIMEWAIT_LEN */
#define HK_TIME_WAIT_MAX_S 600
/* Of the connections a master opens and closes, the share whose TIME_WAIT it holds: the side
 * that closes first holds it, and an agent closes after its reply, so mostly the agent does.
 * Sphinx 2.2.11 master over a 2.2.11 agent on loopback, 4 clients, 2,000 searches: 465 on the
 * master's side (0.23; 102 of 300 for one client). Assumed the same for Manticore (its agent too
 * closes after one command without PERSIST). */
#define HK_TIME_WAIT_SHARE 0.23

typedef struct hk_ports {
    int time_wait_s;             /* the ring's length */
    int ports;
    int64_t sec;                 /* the second the newest counter is for */
    int64_t held;                /* ports in TIME_WAIT or in use over the ring */
    uint32_t *per_sec;           /* connections opened in each second of the ring */
    int64_t first_us;            /* the first connect; -1 none yet */
    int64_t first_out_us;        /* when a connect first found no port; -1 never */
    uint64_t refused;            /* connects that found none */
} hk_ports;

/* ports >= 1, 1 <= time_wait_s <= HK_TIME_WAIT_MAX_S. 0, or -1 out of memory (*p zeroed). */
int hk_ports_init(hk_ports *p, int ports, int time_wait_s);
void hk_ports_free(hk_ports *p);
/* A connect at now (µs, never going back): 0 and a port taken, or -1: none free. */
int hk_ports_connect(hk_ports *p, int64_t now_us);
/* Connections a second over the last time_wait seconds at now. */
double hk_ports_rate(hk_ports *p, int64_t now_us);
/* The connect rate that ran the ports out: the ports over the time they took to fill (at most
 * time_wait); 0 if they never ran out. */
double hk_ports_out_rate(const hk_ports *p);

#endif
