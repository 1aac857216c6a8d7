/* hk_ledger: the run's record per route, both engines' (see hk_ledger.h). */
#include "hk_ledger.h"

#include <stdlib.h>

int hk_ledger_init(hk_ledger *L, const hk_cluster *cl)
{
    *L = (hk_ledger){.cl = cl};
    L->li_base = calloc((size_t)cl->ntables + 1, sizeof *L->li_base);
    if (!L->li_base)
        return -1;
    for (int t = 0; t < cl->ntables; t++) {
        L->li_base[t] = L->nli;
        L->nli += cl->tables[t].nlines;
    }
    L->tot = calloc((size_t)L->nli + 1, sizeof *L->tot);
    if (!L->tot)
        return -1;
    for (int t = 0; t < cl->ntables; t++)
        for (int k = 0; k < cl->tables[t].nlines; k++)
            if (!(L->tot[L->li_base[t] + k] = calloc((size_t)cl->tables[t].lines[k].a.n + 1,
                                                     sizeof(hk_ltot))))
                return -1;
    return 0;
}

void hk_ledger_free(hk_ledger *L)
{
    const hk_cluster *cl = L->cl;
    for (int t = 0; L->tot && t < cl->ntables; t++)
        for (int k = 0; k < cl->tables[t].nlines; k++) {
            hk_ltot *r = L->tot[L->li_base[t] + k];
            for (int j = 0; r && j < cl->tables[t].lines[k].a.n; j++)
                hk_hist_free(&r[j].lat);
            free(r);
        }
    free(L->tot);
    free(L->li_base);
    *L = (hk_ledger){0};
}

void hk_ledger_fold(hk_ltot *t, hk_lper *p)
{
    t->q += p->q;
    t->err += p->err;
    t->ok += p->per.n;
    hk_hist_merge(&t->lat, &p->per);
    hk_hist_reset(&p->per);
    p->q = p->err = 0;
}
