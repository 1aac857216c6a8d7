/* hk_seed: one seed made many independent streams — the simulator's per-mirror and per-purpose
 * generators and the live cluster's mirror children draw from stream-derived seeds, so no two
 * mirrors ever draw the same sequence, whatever engine plays them. */
#ifndef HK_SEED_H
#define HK_SEED_H

#include <stdint.h>

#define HK_SEED_MIRROR_STREAM 1000   /* mirror h draws from stream 1000 + h */

/* The seed of stream `stream` of the run seeded `seed` (a 64-bit mix; distinct streams give
 * distinct seeds). */
uint64_t hk_seed_stream(uint64_t seed, uint64_t stream);

#endif
