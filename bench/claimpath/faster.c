/* faster.c — one PERF_EXPECT_FASTER on host work: the claim whose path claimpath.py follows. */
#include <perfgate.h>

static volatile double sink;

/* n multiply-adds. */
static void spin(void *arg)
{
  long n = *(long *)arg;
  double x = 0;
  for (long i = 0; i < n; i++) x += (double)i * 0.5;
  sink = x;
}

PERF_TEST(claimpath, one_faster_claim)
{
  static long small = 2000, big = 8000;
  perf_workload fast = PERF_WORKLOAD(spin, &small, .clock = PERF_CLOCK_WALL);
  perf_workload slow = PERF_WORKLOAD(spin, &big, .clock = PERF_CLOCK_WALL);
  PERF_EXPECT_FASTER(fast, slow, 1.5);
}
