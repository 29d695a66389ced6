/* cases.c — make bench-commit-noise's host suite: host-clock workloads and claims on them. */
/* Workloads of 2 us to 5 ms (a dependency chain, copies, a sort, a sum, a
 * hash) and the FASTER and SIMILAR claims between them, each workload slowed
 * by a planted fraction when BENCH_SLOW names it ("workload=0.05"). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfgate.h"

static volatile uint64_t sink;

/* The planted slowdown of workload name: BENCH_SLOW="name=fraction[,...]";
 * 0 when it names none. */
static double planted(const char *name)
{
  const char *s = getenv("BENCH_SLOW");
  size_t n = strlen(name);
  for (; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
    if (!strncmp(s, name, n) && s[n] == '=') return atof(s + n + 1);
  return 0;
}

/* One workload: its name, its kind of work and its size. */
typedef struct job {
  const char *name;
  void (*run)(struct job *);
  size_t size;
  double slow;   /* planted, a fraction of the work added */
  char *a, *b;   /* buffers of size bytes */
  uint32_t *keys, *sorted;
} job;

/* A serial dependency chain of size steps (and the planted share more). */
static void chain(job *j)
{
  uint64_t x = 88172645463325252ull, n = (uint64_t)((double)j->size * (1 + j->slow));
  for (uint64_t i = 0; i < n; i++) x ^= x << 13, x ^= x >> 7, x ^= x << 17;
  sink = x;
}

/* A copy of size bytes, repeated for the planted share. */
static void copy(job *j)
{
  size_t n = (size_t)((double)j->size * j->slow);
  memcpy(j->b, j->a, j->size);
  if (n) memcpy(j->b, j->a, n);
  sink = (unsigned char)j->b[j->size / 2];
}

static int by_key(const void *x, const void *y)
{
  uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
  return (a > b) - (a < b);
}

/* A sort of size keys (the same keys each time), the planted share
 * sorted again. */
static void sort(job *j)
{
  memcpy(j->sorted, j->keys, j->size * sizeof *j->keys);
  qsort(j->sorted, j->size, sizeof *j->sorted, by_key);
  size_t n = (size_t)((double)j->size * j->slow);
  if (n) memcpy(j->sorted, j->keys, n * sizeof *j->keys), qsort(j->sorted, n, sizeof *j->sorted, by_key);
  sink = j->sorted[j->size / 2];
}

/* A sum over size bytes read as 64-bit words, the planted share again. */
static void sum(job *j)
{
  const uint64_t *w = (const uint64_t *)j->a;
  size_t n = j->size / 8, more = (size_t)((double)n * j->slow);
  uint64_t s = 0;
  for (size_t i = 0; i < n; i++) s += w[i];
  for (size_t i = 0; i < more; i++) s += w[i];
  sink = s;
}

static void run_job(void *arg)
{
  job *j = arg;
  j->run(j);
}

/* Sets up j (buffers of its size, freed when the test ends). */
static void setup(job *j, const char *name, void (*run)(job *), size_t size)
{
  memset(j, 0, sizeof *j);
  j->name = name, j->run = run, j->size = size, j->slow = planted(name);
  if (run == copy || run == sum) {
    PERF_ALLOC_HOST(j->a, size);
    PERF_ALLOC_HOST(j->b, size);
    memset(j->a, 7, size);
  }
  if (run == sort) {
    PERF_ALLOC_HOST(j->keys, size * sizeof *j->keys);
    PERF_ALLOC_HOST(j->sorted, size * sizeof *j->sorted);
    uint32_t x = 2463534242u;
    for (size_t i = 0; i < size; i++) x ^= x << 13, x ^= x >> 17, x ^= x << 5, j->keys[i] = x;
  }
}

#define JOB(var, label, run, size) \
  static job var;                  \
  setup(&var, label, run, size);   \
  perf_workload var##_w = PERF_WORKLOAD(run_job, &var, .name = label)

/* name, the faster workload (label, work, size), the slower one, the
 * factor FASTER claims between them. */
#define CN_CLAIMS(X)                                                                              \
  X(chain_4x_is_2x_slower, "chain_1k", chain, 1000, "chain_4k", chain, 4000, 2)                  \
  X(long_chain_16x, "chain_64k", chain, 64000, "chain_1m", chain, 1000000, 8)                    \
  X(copy_in_cache_beats_dram, "copy_256k", copy, 256 << 10, "copy_16m", copy, 16 << 20, 16)      \
  X(sort_4k_vs_64k, "sort_4k", sort, 4096, "sort_64k", sort, 65536, 8)                           \
  X(sum_1m_vs_32m, "sum_1m", sum, 1 << 20, "sum_32m", sum, 32 << 20, 8)

#define CN_FASTER(name, fl, fw, fs, sl, sw, ss, factor) \
  PERF_TEST(cn, name)                                   \
  {                                                     \
    JOB(small, fl, fw, fs);                             \
    JOB(big, sl, sw, ss);                               \
    PERF_EXPECT_FASTER(small_w, big_w, factor);         \
  }
CN_CLAIMS(CN_FASTER)

PERF_TEST(cn, a_chain_is_similar_to_itself)
{
  JOB(a, "chain_16k_a", chain, 16000);
  JOB(b, "chain_16k_b", chain, 16000);
  PERF_EXPECT_SIMILAR(a_w, b_w, 0.1);
}
