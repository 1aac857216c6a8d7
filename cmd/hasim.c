/* hasim: the simulator's entry — picks the command (see hasim.h) and turns SIGINT, SIGTERM
 * and SIGHUP into a request to stop that the command acts on between events. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "hasim.h"

static volatile sig_atomic_t stop_signal; /* main's: the signal that asked to stop, 0 none */

static void on_signal(int sig) { stop_signal = sig; }

static void watch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: a sweep's wait for its workers wakes up */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

int main(int argc, char **argv)
{
    watch_signals();
    if (argc > 1 && !strcmp(argv[1], "init"))
        return hasim_init(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "sweep"))
        return hasim_sweep(argc - 1, argv + 1, &stop_signal);
    if (argc > 1 && !strcmp(argv[1], "merge"))
        return hasim_merge(argc - 1, argv + 1);
    return hasim_run(argc, argv, &stop_signal);
}
