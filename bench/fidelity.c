/* fidelity.c — bench-fidelity: how close perfgate's measurements come to the hardware (docs/fidelity.md). */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "kernels.h"
#include "perfgate.h"
#include "base/stats.h"
#include "worker/context.h"
#include "worker/workload.h"

/* The four kernels, ~3 us to ~2 ms on an H100: element-wise x + 1 (memory
 * bound) and the fused nested sine (more arithmetic), at two sizes each. */
typedef struct kcase {
  const char *name;
  int sine;
  size_t n;
  float *x;
  cudaStream_t s;
} kcase;

static kcase K[] = {{"ew_256k", 0, (size_t)1 << 18, NULL, NULL},
                    {"sin4_4m", 1, (size_t)1 << 22, NULL, NULL},
                    {"ew_64m", 0, (size_t)1 << 26, NULL, NULL},
                    {"sin4_512m", 1, (size_t)1 << 29, NULL, NULL}};
enum { NK = sizeof K / sizeof K[0] };

static void run_k(void *arg)
{
  kcase *k = arg;
  PERF_CUDA(k->sine ? kern_sin4_f32(k->x, k->n, k->s)
                    : kern_ew_f32(k->x, k->n, 3, k->s));
}

/* Allocates and fills the kernels' buffers on one stream; exits on error. */
static void setup(cudaStream_t s)
{
  for (int i = 0; i < NK; i++) {
    K[i].s = s;
    if (cudaMalloc((void **)&K[i].x, K[i].n * sizeof(float)) ||
        kern_fill_f32(K[i].x, K[i].n, 7, 1.0f, s)) {
      fprintf(stderr, "bench-fidelity: cannot set up %s: %s\n", K[i].name,
              cudaGetErrorString(cudaGetLastError()));
      exit(2);
    }
  }
}

static char last_verdict[1100]; /* the last verdict line, for a wrong one */

/* Verdict lines and claim records stay quiet (the last verdict is kept);
 * INFO lines go to stderr. */
static void quiet(enum perf__line_kind kind, const char *line)
{
  if (kind == PERF__INFO || kind == PERF__NOTICE) fprintf(stderr, "%s\n", line);
  if (kind == PERF__DETAIL && (!strncmp(line, "FASTER(", 7) || !strncmp(line, "SIMILAR(", 8)))
    snprintf(last_verdict, sizeof last_verdict, "%s", line);
}

/* Counts a verdict that came out wrong and prints its line. */
static int wrong_if(int bad)
{
  if (bad) printf("wrong: %s\n", last_verdict);
  return bad;
}

static const char *mode_arg[4];

static perf_clock clock_named(const char *c)
{
  static const char *const names[] = {"auto", "events", "wall", "submit", "device", "cold"};
  for (int i = 1; i < 6; i++)
    if (!strcmp(c, names[i])) return (perf_clock)i;
  fprintf(stderr, "bench-fidelity: unknown clock '%s'\n", c);
  exit(2);
}

static int cmpd(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Per kernel and clock, the median of s samples (seconds per iteration)
 * after perfgate's own warm-up and warm_s seconds more of the kernel run
 * back to back, one line each. */
static void medians_of(int s, double warm_s)
{
  static const perf_clock clocks[] = {PERF_CLOCK_DEVICE, PERF_CLOCK_EVENTS, PERF_CLOCK_COLD};
  enum { MAX_S = 20001 };
  static double t[MAX_S];
  const int S = s < 3 ? 3 : s > MAX_S ? MAX_S : s;
  char why[400];
  for (int i = 0; i < NK; i++)
    for (int c = 0; c < 3; c++) {
      perf_workload w = PERF_WORKLOAD(run_k, &K[i], .stream = K[i].s, .clock = clocks[c],
                                      .name = K[i].name);
      perf__workload_prepare(&w, 1e-3, 1.0);
      for (double t0 = perf__clock_now(); perf__clock_now() - t0 < warm_s;) {
        for (int r = 0; r < 16; r++) run_k(&K[i]);
        PERF_CUDA(cudaStreamSynchronize(K[i].s));
      }
      for (int k = 0; k < S; k++)
        if (perf__workload_sample(&w, &t[k], why, sizeof why)) {
          fprintf(stderr, "bench-fidelity: %s\n", why);
          exit(2);
        }
      qsort(t, S, sizeof t[0], cmpd);
      PERF_EXPECT_TRUE(t[0] > 0 && isfinite(t[S - 1]));
      printf("median %s %s %.9e %ld\n", K[i].name, perf__clock_name(clocks[c]), t[S / 2],
             w.perf__state->batch);
      double sum = 0; /* the mean too: it falls between the event timer's steps */
      for (int k = 0; k < S; k++) sum += t[k];
      printf("mean %s %s %.9e\n", K[i].name, perf__clock_name(clocks[c]), sum / S);
    }
}

/* "medians": 101 samples each. */
static void medians(void) { medians_of(101, 0); }

/* "medians-n N": N samples each (the sample size's share of the spread
 * between processes). */
static void medians_n(void) { medians_of(atoi(mode_arg[0]), 0); }

/* "medians-warm S": 101 samples each after S seconds of the kernel under
 * load (the GPU's clock and power state a long measurement reaches). */
static void medians_warm(void) { medians_of(101, atof(mode_arg[0])); }

/* "placement": the 2^18 kernel's cold and device medians (101 samples)
 * with its buffer at 16 different offsets inside one 64 MiB allocation:
 * whether where a buffer lands moves the time as much as a new process
 * does. */
static void placement(void)
{
  kcase *k = &K[0];
  float *region = NULL, *own = k->x;
  size_t step = (size_t)3 << 20; /* 3 MiB: not a power of two */
  PERF_CUDA(cudaMalloc((void **)&region, (size_t)64 << 20));
  for (int off = 0; off < 16; off++) {
    k->x = (float *)((char *)region + (size_t)off * step);
    PERF_CUDA(kern_fill_f32(k->x, k->n, 7, 1.0f, k->s));
    static const perf_clock clocks[] = {PERF_CLOCK_COLD, PERF_CLOCK_DEVICE};
    for (int c = 0; c < 2; c++) {
      double t[101];
      char why[400];
      perf_workload w = PERF_WORKLOAD(run_k, k, .stream = k->s, .clock = clocks[c], .name = k->name);
      perf__workload_prepare(&w, 1e-3, 1.0);
      for (int i = 0; i < 101; i++)
        if (perf__workload_sample(&w, &t[i], why, sizeof why)) {
          fprintf(stderr, "bench-fidelity: %s\n", why);
          exit(2);
        }
      qsort(t, 101, sizeof t[0], cmpd);
      printf("placement %s offset %zu MiB %s %.9e\n", k->name, off * (step >> 20),
             perf__clock_name(clocks[c]), t[50]);
    }
  }
  k->x = own;
  PERF_CUDA(cudaFree(region));
}

/* "launches": how fast the host can queue the 2^18-float kernel, against
 * how fast the GPU runs it: n launches timed on the host clock without
 * waiting (n small enough to stay inside the launch queue: what launching
 * costs), then until the GPU is done. When queuing costs more than the
 * kernel takes, a long batch of launches is bound by the host: this is
 * what separates a batch of thousands (nvbench's) from the device clock's
 * batch, which queues its launches behind a blocked stream first. */
static void launches(void)
{
  kcase *k = &K[0];
  static const int counts[] = {64, 256, 1024, 4096, 16384};
  for (int r = 0; r < 3; r++)
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
      int n = counts[c];
      PERF_CUDA(cudaStreamSynchronize(k->s));
      double t0 = perf__clock_now();
      for (int i = 0; i < n; i++) PERF_CUDA(kern_ew_f32(k->x, k->n, 3, k->s));
      double t1 = perf__clock_now();
      PERF_CUDA(cudaStreamSynchronize(k->s));
      double t2 = perf__clock_now();
      printf("launches %s n=%d queue %.3f us/launch, until done %.3f us/kernel (wall clock)\n",
             k->name, n, (t1 - t0) / n * 1e6, (t2 - t0) / n * 1e6);
    }
}

/* "ncu-target": each kernel 3 times to warm up, then 11 times, in order;
 * run under Nsight Compute. */
static void ncu_target(void)
{
  for (int i = 0; i < NK; i++)
    for (int r = 0; r < 14; r++) run_k(&K[i]);
  PERF_EXPECT_TRUE(cudaStreamSynchronize(K[0].s) == cudaSuccess);
}

/* "aa N KERNEL CLOCK": comparisons of two identical workloads, N of each
 * claim that must pass, SIMILAR(a, a', 5 %) and FASTER(a, a', 1/1.05) ("a is
 * at most 5 % slower"), and N/5 of FASTER(a, a', 1.05), which must not.
 * Prints the wrong verdicts and the time per comparison of each. */
static void aa(void)
{
  int n = atoi(mode_arg[0]);
  kcase *k = NULL;
  for (int i = 0; i < NK; i++)
    if (!strcmp(K[i].name, mode_arg[1])) k = &K[i];
  if (!k || n <= 0) {
    fprintf(stderr, "bench-fidelity: aa N KERNEL CLOCK\n");
    exit(2);
  }
  perf_clock c = clock_named(mode_arg[2]);
  perf_workload a = PERF_WORKLOAD(run_k, k, .stream = k->s, .clock = c, .name = "a");
  perf_workload b = PERF_WORKLOAD(run_k, k, .stream = k->s, .clock = c, .name = "a2");
  int wrong[3] = {0, 0, 0}, runs[3] = {n, n, n / 5};
  double secs[3];
  for (int kind = 0; kind < 3; kind++) {
    double t0 = perf__clock_now();
    for (int i = 0; i < runs[kind]; i++) {
      perf__context_opt.seed = 1000003u * (unsigned)i + 17u * (unsigned)kind + 1;
      if (kind == 0) wrong[0] += wrong_if(!PERF_EXPECT_SIMILAR(a, b, 0.05));
      if (kind == 1) wrong[1] += wrong_if(!PERF_EXPECT_FASTER(a, b, 1 / 1.05));
      if (kind == 2) wrong[2] += wrong_if(PERF_EXPECT_FASTER(a, b, 1.05));
    }
    secs[kind] = (perf__clock_now() - t0) / runs[kind];
  }
  printf("aa kernel=%s clock=%s similar_n=%d similar_false_fail=%d similar_s=%.3f "
         "not_slower_n=%d not_slower_false_fail=%d not_slower_s=%.3f "
         "faster_n=%d faster_false_pass=%d faster_s=%.3f\n",
         k->name, mode_arg[2], runs[0], wrong[0], secs[0], runs[1], wrong[1], secs[1],
         runs[2], wrong[2], secs[2]);
}

/* "power N": FASTER(fast, slow, 1.05) where slow is the same kernel on 10 %
 * more elements; prints how often the claim was detected, and the true
 * ratio from 201 interleaved samples of each. */
static void power(void)
{
  int n = atoi(mode_arg[0]);
  static kcase fastk = {"ew_16m", 0, (size_t)1 << 24, NULL, NULL}, slowk;
  slowk = fastk;
  slowk.name = "ew_16m_plus_10pct";
  slowk.n = fastk.n + fastk.n / 10;
  fastk.s = slowk.s = K[0].s;
  fastk.x = slowk.x = K[3].x; /* 2^29 floats: room for both */
  perf_workload f = PERF_WORKLOAD(run_k, &fastk, .stream = fastk.s, .name = "fast");
  perf_workload s = PERF_WORKLOAD(run_k, &slowk, .stream = slowk.s, .name = "slow");
  int hit = 0;
  double t0 = perf__clock_now();
  for (int i = 0; i < n; i++) {
    perf__context_opt.seed = 7919u * (unsigned)i + 3;
    hit += !wrong_if(!PERF_EXPECT_FASTER(f, s, 1.05));
  }
  double secs = (perf__clock_now() - t0) / n;
  enum { S = 201 };
  double tf[S], ts[S];
  char why[400];
  for (int i = 0; i < S; i++)
    if (perf__workload_sample(&f, &tf[i], why, sizeof why) || perf__workload_sample(&s, &ts[i], why, sizeof why)) {
      fprintf(stderr, "bench-fidelity: %s\n", why);
      exit(2);
    }
  double ratio = perf__stats_median(ts, S) / perf__stats_median(tf, S);
  PERF_EXPECT_TRUE(ratio > 1.05 && ratio < 1.15); /* the plant took */
  printf("power n=%d detected=%d true_ratio=%.4f seconds_per_comparison=%.3f\n", n, hit,
         ratio, secs);
}

/* "overhead": per-iteration time of the smallest kernel through perfgate's
 * events clock and through a hand-written event loop of the same batch,
 * interleaved, 401 samples each; prints both medians and the median of the
 * paired differences with its 2.5-97.5 % range. */
static void overhead(void)
{
  enum { S = 401 };
  static double pg[S], hand[S], d[S];
  kcase *k = &K[0];
  perf_workload w = PERF_WORKLOAD(run_k, k, .stream = k->s, .name = "perfgate");
  perf__workload_prepare(&w, 1e-3, 1.0);
  long batch = w.perf__state->batch;
  cudaEvent_t e0, e1;
  char why[400];
  PERF_CUDA(cudaEventCreate(&e0));
  PERF_CUDA(cudaEventCreate(&e1));
  for (int i = 0; i < S; i++) {
    float ms = 0;
    PERF_CUDA(cudaEventRecord(e0, k->s));
    for (long j = 0; j < batch; j++) PERF_CUDA(kern_ew_f32(k->x, k->n, 3, k->s));
    PERF_CUDA(cudaEventRecord(e1, k->s));
    PERF_CUDA(cudaEventSynchronize(e1));
    PERF_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    hand[i] = ms * 1e-3 / (double)batch;
    if (perf__workload_sample(&w, &pg[i], why, sizeof why)) {
      fprintf(stderr, "bench-fidelity: %s\n", why);
      exit(2);
    }
    d[i] = pg[i] - hand[i];
  }
  qsort(d, S, sizeof d[0], cmpd);
  PERF_EXPECT_TRUE(isfinite(d[0]) && isfinite(d[S - 1]));
  printf("overhead batch=%ld perfgate=%.9e hand=%.9e diff_median=%.9e diff_p2.5=%.9e "
         "diff_p97.5=%.9e\n", batch, perf__stats_median(pg, S), perf__stats_median(hand, S), d[S / 2],
         d[S / 40], d[S - 1 - S / 40]);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
}

static void (*mode_fn)(void);

static void body(void)
{
  cudaStream_t s;
  PERF_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  setup(s);
  PERF_CUDA(cudaStreamSynchronize(s));
  mode_fn();
}

int main(int argc, char **argv)
{
  static const struct {
    const char *name;
    void (*fn)(void);
    int args;
  } modes[] = {{"medians", medians, 0}, {"medians-n", medians_n, 1}, {"medians-warm", medians_warm, 1}, {"ncu-target", ncu_target, 0},
               {"aa", aa, 3}, {"power", power, 1}, {"overhead", overhead, 0}, {"launches", launches, 0}, {"placement", placement, 0}};
  for (size_t i = 0; argc >= 2 && i < sizeof modes / sizeof modes[0]; i++)
    if (!strcmp(argv[1], modes[i].name) && argc == 2 + modes[i].args) mode_fn = modes[i].fn;
  if (!mode_fn) {
    fprintf(stderr, "usage: bench-fidelity medians | medians-n N | medians-warm S | ncu-target | aa N KERNEL CLOCK | "
                    "power N | overhead | launches | placement\n");
    return 2;
  }
  for (int i = 2; i < argc && i < 6; i++) mode_arg[i - 2] = argv[i];
  perf__context_opt.budget_s = 2;
  perf__context_opt.seed = 1;
  perf__context_set_sink(quiet);
  /* The sampler and the claims run inside a context of their own: no test
   * registry, no worker. */
  perf__context_result res;
  jmp_buf *end = perf__context_begin(argv[1], &res);
  if (setjmp(*end) == 0) body();
  perf__context_finish_checks();
  perf__context_finish();
  if (res.outcome != PERF__PASS && res.outcome != PERF__FAIL) {
    fprintf(stderr, "bench-fidelity: %s: %s\n", perf__status_word(res.outcome), res.reason);
    return 2;
  }
  return 0;
}
