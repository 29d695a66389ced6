/* rng.c — a seeded random generator (xoshiro256**), so a verdict can be reproduced with --seed. */
#include "stats/rng.h"

#include <math.h>

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t splitmix(uint64_t *x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Never fails; every seed (0 included) gives a valid state. */
void perf__rng_seed(perf__rng *r, uint64_t seed)
{
  for (int i = 0; i < 4; i++) r->s[i] = splitmix(&seed);
}

/* Never fails. */
uint64_t perf__rng_next(perf__rng *r)
{
  uint64_t *s = r->s;
  uint64_t out = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return out;
}

/* Lemire's multiply-and-reject: unbiased. Never fails for n > 0. */
uint32_t perf__rng_below(perf__rng *r, uint32_t n)
{
  uint64_t m = (uint64_t)(uint32_t)(perf__rng_next(r) >> 32) * n;
  uint32_t low = (uint32_t)m;
  if (low < n) {
    uint32_t floor = (uint32_t)(-n) % n;
    while (low < floor) {
      m = (uint64_t)(uint32_t)(perf__rng_next(r) >> 32) * n;
      low = (uint32_t)m;
    }
  }
  return (uint32_t)(m >> 32);
}

/* Never fails. */
double perf__rng_unit(perf__rng *r)
{
  return (double)(perf__rng_next(r) >> 11) * 0x1.0p-53;
}

/* Never fails. */
double perf__rng_normal(perf__rng *r)
{
  double u = perf__rng_unit(r), v = perf__rng_unit(r);
  return sqrt(-2.0 * log1p(-u)) * cos(2.0 * 3.14159265358979323846 * v);
}
