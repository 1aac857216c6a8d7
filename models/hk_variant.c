/* hk_variant: the table of imitated implementations. */
#include "hk_variant.h"

#include <string.h>
#include "hk_weights.h"

static const hk_variant variants[HK_VAR_N] = {
    {.name = "manticore", .what = "Manticore's code as it is (timer defect: weights stay 100/N)",
     .timer_reads_timeouts = 1, .rechoose_on_retry = 1, .layout = HK_LAYOUT_MANTICORE,
     .display_scale = 1.0, .init = hk_weights_manticore_init, .rebalance = hk_weights_manticore},
    {.name = "manticore-fixed", .what = "Manticore with the timer it intends (hakarma extension)",
     .rechoose_on_retry = 1, .layout = HK_LAYOUT_MANTICORE, .display_scale = 1.0,
     .init = hk_weights_manticore_init, .rebalance = hk_weights_manticore, .sums_window_time = 1},
    {.name = "sphinx2", .what = "Sphinx 2.2.11", .hello_in_connect = 1, .layout = HK_LAYOUT_SPHINX2,
     .display_scale = 1.0, .init = hk_weights_sphinx2_init, .rebalance = hk_weights_sphinx2,
     .sums_window_time = 1},
    {.name = "documented", .what = "the manual's multiplicative rule, once per karma period",
     .rechoose_on_retry = 1, .per_period = 1, .layout = HK_LAYOUT_MANTICORE, .display_scale = 100.0,
     .init = hk_weights_documented_init, .rebalance = hk_weights_documented, .sums_window_time = 1},
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
