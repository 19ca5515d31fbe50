#include "rng.h"

arena_rng arena_rng_new(uint64_t seed) {
    arena_rng rng = {seed};
    return rng;
}

uint64_t arena_rng_next(arena_rng *rng) {
    uint64_t z = (rng->state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t arena_rng_below(arena_rng *rng, uint64_t n) {
    return n ? arena_rng_next(rng) % n : 0;
}
