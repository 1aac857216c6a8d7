/* hareal: the real-network mode.
 *   hareal mirror --listen IP:PORT [behaviour flags | --scenario FILE --name host:port]
 *   hareal replay --config FILE --trace FILE [--format F] [--speed X | --concurrency N] ...
 *   hareal live SCENARIO [--trace FILE] [--duration T] [--compare-sim] ...
 * Exit codes as hasim's: 0 ok, 1 run-time failure, 2 command line, 3 bad input. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rl_cli.h"

static int usage(void)
{
    fprintf(stderr,
            "usage: hareal mirror --listen IP:PORT [--service DIST] [--threads N] [--errors P]\n"
            "                     [--warnings P] [--fault KIND] [--scenario FILE --name HOST:PORT]\n"
            "                     [--log FILE.csv] [--control] [--seed N] [--max-conns N]\n"
            "                     [--idle-timeout T] [--max-request BYTES]\n"
            "       hareal replay --config FILE --trace FILE [--format csv|sphinxql|plain]\n"
            "                     [--speed X | --concurrency N] [--out DIR] [--force] [--plot]\n"
            "                     [--variant V] [--strategy S] [--seed N] [--map HOST:PORT=IP:PORT]...\n"
            "       hareal live SCENARIO [--trace FILE] [--duration T] [--compare-sim] [--out DIR]\n"
            "                     [--force] [--plot] [--variant V] [--strategy S]\n");
    return RL_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    signal(SIGPIPE, SIG_IGN); /* a peer that closed early is an error value, not a death */
    if (!strcmp(argv[1], "mirror"))
        return rl_cmd_mirror(argc - 1, argv + 1);
    if (!strcmp(argv[1], "replay"))
        return rl_cmd_replay(argc - 1, argv + 1);
    if (!strcmp(argv[1], "live"))
        return rl_cmd_live(argc - 1, argv + 1, argv[0]);
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage();
        return 0;
    }
    return usage();
}
