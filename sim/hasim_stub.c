/* temporary */
#include <stdio.h>
#include "hasim.h"
int hasim_init(int argc, char **argv) { (void)argc; (void)argv; return EXIT_USAGE; }
