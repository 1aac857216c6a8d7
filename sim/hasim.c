/* hasim: the simulator's entry — picks the command (see hasim.h). */
#include <stdio.h>
#include <string.h>
#include "hasim.h"

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "init"))
        return hasim_init(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "sweep"))
        return hasim_sweep(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "merge"))
        return hasim_merge(argc - 1, argv + 1);
    return hasim_run(argc, argv);
}
