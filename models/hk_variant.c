/* hk_variant: the table of imitated implementations. */
#include "hk_variant.h"

#include <string.h>
#include "hk_weights.h"

static const hk_variant variants[HK_VAR_N] = {
    {"manticore", "Manticore's code as it is (timer defect: weights stay 100/N)", 1, 1, 0, 0,
     HK_LAYOUT_MANTICORE, 1.0, hk_weights_manticore_init, hk_weights_manticore, 0},
    {"manticore-fixed", "Manticore with the timer it intends (hakarma extension)", 0, 1, 0, 0,
     HK_LAYOUT_MANTICORE, 1.0, hk_weights_manticore_init, hk_weights_manticore, 1},
    {"sphinx2", "Sphinx 2.2.11", 0, 0, 0, 1, HK_LAYOUT_SPHINX2, 1.0, hk_weights_sphinx2_init,
     hk_weights_sphinx2, 1},
    {"documented", "the manual's multiplicative rule, once per karma period", 0, 1, 1, 0,
     HK_LAYOUT_MANTICORE, 100.0, hk_weights_documented_init, hk_weights_documented, 1},
};

const hk_variant *hk_variant_get(hk_variant_id id)
{
    return id >= 0 && id < HK_VAR_N ? &variants[id] : &variants[0];
}

int hk_variant_find(const char *name)
{
    for (int i = 0; i < HK_VAR_N; i++)
        if (!strcmp(name, variants[i].name))
            return i;
    return -1;
}

const char *hk_variant_name_at(int i) { return i >= 0 && i < HK_VAR_N ? variants[i].name : NULL; }

const char *hk_variant_names(void) { return "manticore, manticore-fixed, sphinx2, documented"; }
