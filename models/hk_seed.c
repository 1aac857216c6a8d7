/* hk_seed: stream seeds from a run's seed (see hk_seed.h). */
#include "hk_seed.h"

uint64_t hk_seed_stream(uint64_t seed, uint64_t stream)
{
    return (seed * 0x9E3779B97F4A7C15ULL) ^ (stream * 0xBF58476D1CE4E5B9ULL);
}
