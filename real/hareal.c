/* hareal: the real-network mode, one command per job:
 *   hareal mirror --listen IP:PORT ...   a mirror agent real masters accept
 *   hareal replay --config F --trace F   a master replaying a trace or searchd query log
 *   hareal live SCENARIO ...             a whole cluster from a scenario, faults for real
 * Exit codes as hasim's: 0 ok, 1 run-time failure, 2 command line, 3 bad input, 130 Ctrl-C. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_cli.h"
#include "rl_cli.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: hareal mirror --listen IP:PORT [options]   a mirror agent (searchd side)\n"
               "       hareal replay --config FILE --trace FILE [options]   a master replaying a trace\n"
               "       hareal live SCENARIO [options]   a live cluster on loopback from a scenario\n"
               "       hareal COMMAND --help   each command's options, files and exit codes\n"
               "exit codes: 0 ok; 1 run-time failure; 2 bad command line; 3 bad input (config,\n"
               "  scenario, trace: file:line:column); 130 interrupted by Ctrl-C (rows written)\n");
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN); /* a peer that closed early is an error value, not a death */
    if (argc > 1 && !strcmp(argv[1], "mirror"))
        return rl_cmd_mirror(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "replay"))
        return rl_cmd_replay(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "live"))
        return rl_cmd_live(argc - 1, argv + 1, argv[0]);
    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage(stdout);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--version")) {
        hk_cli_version("hareal");
        return 0;
    }
    if (argc > 1)
        fprintf(stderr, "hareal: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return RL_EXIT_USAGE;
}
