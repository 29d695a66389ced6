/* rng.h — a seeded random generator (xoshiro256**), so a verdict can be reproduced with --seed. */
#ifndef PERF_RNG_H
#define PERF_RNG_H

#include <stdint.h>

/* xoshiro256** generator: deterministic for a given seed, so a verdict can be
 * reproduced with --seed. */
typedef struct perf__rng {
  uint64_t s[4];
} perf__rng;

void perf__rng_seed(perf__rng *r, uint64_t seed);
uint64_t perf__rng_next(perf__rng *r);
/* Uniform integer in [0, n); n must be > 0. */
uint32_t perf__rng_below(perf__rng *r, uint32_t n);
/* Uniform double in [0, 1). */
double perf__rng_unit(perf__rng *r);
/* Standard normal (Box-Muller). */
double perf__rng_normal(perf__rng *r);

#endif
