/* hk_exit: the printers every program shares (see hk_exit.h). */
#include "hk_exit.h"

#include <stdio.h>

void hk_print_err(const char *prog, const hk_err *e)
{
    char m[1100];
    fprintf(stderr, "%s: %s\n", prog, hk_err_str(e, m, sizeof m));
}

void hk_print_warns(const char *prog, const hk_warns *w)
{
    char m[1100];
    for (int i = 0; i < w->n; i++)
        fprintf(stderr, "%s: warning: %s\n", prog, hk_err_str(&w->w[i], m, sizeof m));
    if (w->dropped)
        fprintf(stderr, "%s: %d more warnings\n", prog, w->dropped);
}
