/* hareal: the real-network mode's entry — picks the command (see hareal.h). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include "hareal.h"

static const hk_cmd hareal_cmd = {
    .prog = "hareal",
    .usage = "mirror --listen IP:PORT [options]   a mirror agent (searchd side)\n"
             "replay --config FILE --trace FILE [options]   a master replaying a trace\n"
             "live SCENARIO [options]   a live cluster on loopback from a scenario\n"
             "proxy --listen IP:PORT --upstream IP:PORT [options]   a fault proxy before a real agent\n"
             "watch --master HOST:PORT [options]   a running master followed live",
    .about = "Each command has its own --help (its options, files and exit codes).",
    .args = "command"
};

/* Every command holds a socket per connection (a proxy two): the open-files limit goes from
 * its soft value (1024 on a stock Debian login) to its hard one, as a server would ask. */
static void open_files_raised(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max == RLIM_INFINITY ? 1048576 : r.rlim_max; /* Linux's nr_open */
        setrlimit(RLIMIT_NOFILE, &r);
    }
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN); /* a peer that closed early is an error value, not a death */
    open_files_raised();
    if (argc > 1 && !strcmp(argv[1], "mirror"))
        return rl_cmd_mirror(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "replay"))
        return rl_cmd_replay(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "live"))
        return rl_cmd_live(argc - 1, argv + 1, argv[0]);
    if (argc > 1 && !strcmp(argv[1], "proxy"))
        return rl_cmd_proxy(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "watch"))
        return rl_cmd_watch(argc - 1, argv + 1);
    if (argc > 1 && argv[1][0] != '-')
        return hk_cmd_bad(&hareal_cmd, "unknown command '%s' (expected mirror, replay, live, proxy or watch)",
                          argv[1]);
    int npos, rc = hk_cmd_parse(&hareal_cmd, argc, argv, NULL, NULL, &npos);
    if (rc)
        return rc < 0 ? 0 : rc;
    return hk_cmd_bad(&hareal_cmd, "expected a command: mirror, replay, live, proxy or watch");
}
