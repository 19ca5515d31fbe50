/* A small seedable generator: SplitMix64 (Steele, Lea and Flood 2014; Vigna's reference
 * constants). C's rand() is one hidden global with an implementation-defined sequence, so the
 * strategy draws from this instead, seeded with game_start.bot_seed at every game. */
#ifndef ARENA_RNG_H
#define ARENA_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t state;
} arena_rng;

/* A generator seeded with `seed`. */
arena_rng arena_rng_new(uint64_t seed);

/* The next 64-bit value. */
uint64_t arena_rng_next(arena_rng *rng);

/* An integer in [0, n) for n > 0 (a small modulo bias, harmless for a starter). */
uint64_t arena_rng_below(arena_rng *rng, uint64_t n);

#endif
