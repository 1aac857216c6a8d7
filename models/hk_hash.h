/* hk_hash: FNV-1a, 64 bits — a checksum of bytes that a sweep's point files carry, so a merge
 * tells a truncated, corrupted or foreign file from a whole one (not a cryptographic hash). */
#ifndef HK_HASH_H
#define HK_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HK_HASH_INIT 0xcbf29ce484222325ull

/* h continued over n bytes at p (start with HK_HASH_INIT). */
uint64_t hk_hash(uint64_t h, const void *p, size_t n);

#endif
