/* fidelity.c — bench-fidelity: how close perfgate's measurements come to the hardware. */
/* Its measurements are those of docs/fidelity.md. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/clock.h"
#include "kernels.h"
#include "perfgate.h"
#include "stats/stats.h"
#include "worker/device/blocker.h"
#include "worker/context.h"
#include "worker/sync/cupti.h"
#include "worker/sample/workload.h"

/* The kernels, ~2 us to ~9 ms on an H100: element-wise x + 1 (memory
 * bound), the fused nested sine (more arithmetic) and one cuBLAS fp16 GEMM.
 * The first four are the ones docs/fidelity.md's sections a-f time. */
enum { EW, SIN4, GEMM };
typedef struct kcase {
  const char *name;
  int kind;
  size_t n; /* elements; for GEMM the matrices' dimension */
  float *x;
  cudaStream_t s;
} kcase;

static kcase K[] = {{"ew_256k", EW, (size_t)1 << 18, NULL, NULL},
                    {"sin4_4m", SIN4, (size_t)1 << 22, NULL, NULL},
                    {"ew_64m", EW, (size_t)1 << 26, NULL, NULL},
                    {"sin4_512m", SIN4, (size_t)1 << 29, NULL, NULL},
                    {"ew_4k", EW, (size_t)1 << 12, NULL, NULL},
                    {"gemm_f16_2k", GEMM, 2048, NULL, NULL},
                    {"sin4_2g", SIN4, (size_t)1 << 31, NULL, NULL}};
enum { NK = sizeof K / sizeof K[0], NCU_K = 4 /* sections a-f: the first four */ };

/* One iteration; a failed launch or GEMM ends the test. */
static void run_k(void *arg)
{
  kcase *k = arg;
  if (k->kind == GEMM) {
    size_t nn = k->n * k->n; /* A, B and C, fp16, one after another */
    unsigned short *h = (unsigned short *)k->x;
    PERF_CUBLAS(kern_gemm_f16(h, h + nn, h + 2 * nn, (int)k->n, k->s));
    return;
  }
  PERF_CUDA(k->kind == SIN4 ? kern_sin4_f32(k->x, k->n, k->s)
                            : kern_ew_f32(k->x, k->n, 3, k->s));
}

/* The bytes a kernel's buffer takes. */
static size_t bytes_of(const kcase *k)
{
  return k->kind == GEMM ? 3 * k->n * k->n * 2 : k->n * sizeof(float);
}

/* Allocates and fills the kernels' buffers on one stream; exits on error. */
static void setup(cudaStream_t s)
{
  for (int i = 0; i < NK; i++) {
    K[i].s = s;
    if (cudaMalloc((void **)&K[i].x, bytes_of(&K[i])) ||
        (K[i].kind == GEMM ? kern_fill_f16(K[i].x, 3 * K[i].n * K[i].n, 7, 1.0f, s)
                           : kern_fill_f32(K[i].x, K[i].n, 7, 1.0f, s))) {
      fprintf(stderr, "bench-fidelity: cannot set up %s: %s\n", K[i].name,
              cudaGetErrorString(cudaGetLastError()));
      exit(2);
    }
  }
}

static char last_verdict[1100]; /* the last verdict line, for a wrong one */

/* Verdict lines and claim records stay quiet (the last verdict is kept);
 * INFO lines go to stderr. */
static void quiet(perf_line_kind kind, const char *line)
{
  if (kind == PERF_LINE_INFO || kind == PERF_LINE_NOTICE) fprintf(stderr, "%s\n", line);
  if (kind == PERF_LINE_DETAIL && (!strncmp(line, "FASTER(", 7) || !strncmp(line, "SIMILAR(", 8)))
    snprintf(last_verdict, sizeof last_verdict, "%s", line);
}

/* Counts a verdict that came out wrong and prints its line. */
static int wrong_if(int bad)
{
  if (bad) printf("wrong: %s\n", last_verdict);
  return bad;
}

static const char *mode_arg[4];

/* The clock named c (the library's clock table, host/clock.h); exits 2
 * for an unknown name. */
static perf_clock clock_named(const char *c)
{
  int k = perf__clock_of_name(c);
  if (k >= 0) return (perf_clock)k;
  fprintf(stderr, "bench-fidelity: unknown clock '%s'\n", c);
  exit(2);
}

static int cmpd(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* n samples of w into t[0..n), sorted; exits on a sampling error. */
static void sorted_samples(perf_workload *w, double *t, int n)
{
  char why[400];
  for (int i = 0; i < n; i++)
    if (perf__workload_sample(w, &t[i], why, sizeof why)) {
      fprintf(stderr, "bench-fidelity: %s\n", why);
      exit(2);
    }
  qsort(t, (size_t)n, sizeof t[0], cmpd);
}

/* How many samples a measurement takes (perf__workload_samples' rules). */
typedef struct rule {
  int min_n, max_n;
  double budget_s, rel;
} rule;

/* Per kernel (the first nk) and clock, the median and mean of the samples
 * (seconds per iteration) that rule r takes after perfgate's own warm-up
 * and warm_s seconds more of the kernel run back to back, and the wall
 * time the measurement took, warm-up included: one line each. */
static void medians_of(int nk, rule r, double warm_s)
{
  /* cold first, as nvbench measures cold before batch: a cold sample is
   * not taken right after the same kernel's own load */
  static const perf_clock clocks[] = {PERF_CLOCK_COLD, PERF_CLOCK_DEVICE, PERF_CLOCK_EVENTS};
  enum { MAX_S = 20001 };
  static double t[MAX_S], scratch[MAX_S];
  r.max_n = r.max_n > MAX_S ? MAX_S : r.max_n < 3 ? 3 : r.max_n;
  r.min_n = r.min_n > r.max_n ? r.max_n : r.min_n < 3 ? 3 : r.min_n;
  char why[400];
  for (int i = 0; i < nk; i++)
    for (int c = 0; c < 3; c++) {
      double t0 = perf__clock_now();
      perf__workload_rest_reset(); /* each measurement as its own test */
      perf_workload w = PERF_WORKLOAD(run_k, &K[i], .stream = K[i].s, .clock = clocks[c],
                                      .name = K[i].name);
      perf__workload_prepare(&w, 1e-3, 1.0);
      for (double t1 = perf__clock_now(); perf__clock_now() - t1 < warm_s;) {
        for (int k = 0; k < 16; k++) run_k(&K[i]);
        PERF_CUDA(cudaStreamSynchronize(K[i].s));
      }
      int S = 0;
      perf__workload_want want = {r.min_n, r.max_n, r.budget_s, r.rel};
      if (perf__workload_samples(&w, want, t, scratch, &S, why, sizeof why)) {
        fprintf(stderr, "bench-fidelity: %s\n", why);
        exit(2);
      }
      double wall = perf__clock_now() - t0;
      qsort(t, (size_t)S, sizeof t[0], cmpd);
      PERF_EXPECT_TRUE(t[0] > 0 && isfinite(t[S - 1]));
      double sum = 0; /* the mean too: it falls between the event timer's steps */
      for (int k = 0; k < S; k++) sum += t[k];
      printf("median %s %s %.9e %ld\n", K[i].name, perf__clock_name(clocks[c]),
             perf__stats_median(t, (size_t)S), w.perf__state->batch);
      printf("mean %s %s %.9e\n", K[i].name, perf__clock_name(clocks[c]), sum / S);
      const perf__wstate *st = w.perf__state;
      printf("wall %s %s %.6f %d mhz %u throttle 0x%llx discarded %ld kept %ld\n", K[i].name,
             perf__clock_name(clocks[c]), wall, S, st->last_mhz, st->throttle_seen,
             st->rt.throttled_discarded, st->rt.throttled_kept);
    }
}

/* A fixed count of n samples. */
static rule fixed(int n) { return (rule){n, n, 0, 0}; }

/* "medians": 101 samples each. */
static void medians(void) { medians_of(NCU_K, fixed(101), 0); }

/* "medians-n N": N samples each (the sample size's share of the spread
 * between processes). */
static void medians_n(void) { medians_of(NCU_K, fixed(atoi(mode_arg[0])), 0); }

/* "compare N": every kernel, N samples each (make bench-compare); "compare
 * pREL": the baseline check's rule with its precision set to REL (8 to 2001
 * samples, until the median's 95 % interval is within +-REL or 1 s). */
static void compare(void)
{
  const char *a = mode_arg[0];
  medians_of(NK, a[0] == 'p' ? (rule){8, 2001, 1.0, atof(a + 1)} : fixed(atoi(a)), 0);
}

/* "medians-warm S": 101 samples each after S seconds of the kernel under
 * load (the GPU's clock and power state a long measurement reaches). */
static void medians_warm(void) { medians_of(NCU_K, fixed(101), atof(mode_arg[0])); }

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
      perf_workload w = PERF_WORKLOAD(run_k, k, .stream = k->s, .clock = clocks[c], .name = k->name);
      perf__workload_prepare(&w, 1e-3, 1.0);
      sorted_samples(&w, t, 101);
      printf("placement %s offset %zu MiB %s %.9e\n", k->name, off * (step >> 20),
             perf__clock_name(clocks[c]), t[50]);
    }
  }
  k->x = own;
  PERF_CUDA(cudaFree(region));
}

/* "drift S": the two small kernels' cold and device medians (101 samples
 * each), over and over for S seconds in one process, with the SM clock the
 * GPU watch read after the last sample: whether a process's level is set
 * when it starts or moves while it runs. */
static void drift(void)
{
  static const perf_clock clocks[] = {PERF_CLOCK_COLD, PERF_CLOCK_DEVICE};
  perf_workload w[2][2];
  double t[101], t0 = perf__clock_now(), secs = atof(mode_arg[0]);
  for (int i = 0; i < 2; i++)
    for (int c = 0; c < 2; c++) {
      w[i][c] = (perf_workload)PERF_WORKLOAD(run_k, &K[i], .stream = K[i].s, .clock = clocks[c],
                                             .name = K[i].name);
      perf__workload_prepare(&w[i][c], 1e-3, 1.0);
    }
  for (int round = 0; perf__clock_now() - t0 < secs; round++)
    for (int i = 0; i < 2; i++)
      for (int c = 0; c < 2; c++) {
        sorted_samples(&w[i][c], t, 101);
        printf("drift %d %.3f %s %s %.9e %.9e %.9e %u\n", round, perf__clock_now() - t0,
               K[i].name, perf__clock_name(clocks[c]), t[50], t[10], t[90],
               w[i][c].perf__state->last_mhz);
      }
}

/* "streams": the two small kernels' device-clock medians (101 samples) on
 * each of 8 streams of one process, twice round: whether the level a
 * process gets belongs to the process or to the stream. */
static void streams(void)
{
  enum { NS = 8 };
  cudaStream_t s[NS];
  double t[101];
  for (int j = 0; j < NS; j++) PERF_CUDA(cudaStreamCreateWithFlags(&s[j], cudaStreamNonBlocking));
  for (int r = 0; r < 2; r++)
    for (int j = 0; j < NS; j++)
      for (int i = 0; i < 2; i++) {
        kcase k = K[i];
        k.s = s[j];
        perf_workload w = PERF_WORKLOAD(run_k, &k, .stream = s[j], .clock = PERF_CLOCK_DEVICE,
                                        .name = K[i].name);
        perf__workload_prepare(&w, 1e-3, 1.0);
        sorted_samples(&w, t, 101);
        printf("streams round %d stream %d %s device %.9e\n", r, j, K[i].name, t[50]);
      }
}

/* Median over 51 samples of a hand-written device-clock loop: n launches
 * of k queued behind the blocking kernel between two events; seconds per
 * launch. Exits on a CUDA error or a blocker that timed out. */
static double hand_device(kcase *k, long n)
{
  static double t[51];
  cudaEvent_t e0, e1;
  PERF_CUDA(cudaEventCreate(&e0));
  PERF_CUDA(cudaEventCreate(&e1));
  for (int i = 0; i < 3; i++) run_k(k); /* loads the module: never behind the blocker */
  PERF_CUDA(cudaStreamSynchronize(k->s));
  for (int i = 0; i < 51; i++) {
    float ms = 0;
    PERF_CUDA(perf__blocker_hold(k->s));
    PERF_CUDA(cudaEventRecord(e0, k->s));
    for (long j = 0; j < n; j++) run_k(k);
    PERF_CUDA(cudaEventRecord(e1, k->s));
    perf__blocker_release();
    PERF_CUDA(cudaEventSynchronize(e1));
    PERF_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    if (perf__blocker_timed_out()) {
      fprintf(stderr, "bench-fidelity: the blocker timed out\n");
      exit(2);
    }
    t[i] = ms * 1e-3 / (double)n;
  }
  PERF_CUDA(cudaEventDestroy(e0));
  PERF_CUDA(cudaEventDestroy(e1));
  qsort(t, 51, sizeof t[0], cmpd);
  return t[25];
}

static void no_calls(CUpti_CallbackDomain dom, CUpti_CallbackId id, const CUpti_CallbackData *data)
{
  (void)dom, (void)id, (void)data;
}

/* "cupti-effect": the two small kernels' hand-written device-clock
 * medians before CUPTI was ever attached in this process, then after each
 * of 3 attach/detach cycles (what a routing pass does): whether attaching
 * CUPTI once leaves every later launch slower. */
static void cupti_effect(void)
{
  char why[300];
  for (int cycle = 0; cycle <= 3; cycle++) {
    if (cycle) {
      if (perf__cupti_attach(no_calls, why, sizeof why)) {
        fprintf(stderr, "bench-fidelity: %s\n", why);
        exit(2);
      }
      run_k(&K[0]);
      PERF_CUDA(cudaStreamSynchronize(K[0].s));
      perf__cupti_detach();
    }
    for (int rep = 0; rep < 2; rep++)
      for (int i = 0; i < 2; i++)
        printf("cupti cycles %d rep %d %s device %.9e\n", cycle, rep, K[i].name,
               hand_device(&K[i], i ? 80 : 500));
  }
}

/* Median over 201 samples of a hand-written cold sample of k: L2 flush,
 * then (sync_after_flush: the host waits for the flush first, as nvbench
 * does) the blocking kernel, an event, one launch, an event. Seconds. */
static double hand_cold(kcase *k, int sync_after_flush)
{
  static double t[201];
  cudaEvent_t e0, e1;
  PERF_CUDA(cudaEventCreate(&e0));
  PERF_CUDA(cudaEventCreate(&e1));
  for (int i = 0; i < 3; i++) run_k(k);
  PERF_CUDA(cudaStreamSynchronize(k->s));
  for (int i = 0; i < 201; i++) {
    float ms = 0;
    PERF_CUDA(perf__blocker_l2_flush(k->s, NULL));
    if (sync_after_flush) PERF_CUDA(cudaStreamSynchronize(k->s));
    PERF_CUDA(perf__blocker_hold(k->s));
    PERF_CUDA(cudaEventRecord(e0, k->s));
    run_k(k);
    PERF_CUDA(cudaEventRecord(e1, k->s));
    perf__blocker_release();
    PERF_CUDA(cudaEventSynchronize(e1));
    PERF_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    t[i] = ms * 1e-3;
  }
  PERF_CUDA(cudaEventDestroy(e0));
  PERF_CUDA(cudaEventDestroy(e1));
  qsort(t, 201, sizeof t[0], cmpd);
  return t[100];
}

static kcase *kernel_named(const char *name)
{
  for (int i = 0; i < NK; i++)
    if (!strcmp(K[i].name, name)) return &K[i];
  fprintf(stderr, "bench-fidelity: no kernel '%s'\n", name);
  exit(2);
}

/* "cold-variants": the cold time of three small kernels, hand-timed with
 * and without the host waiting for the L2 flush before the blocking
 * kernel (perfgate's cold clock does not wait, nvbench's does), and the
 * device-clock level of ew_256k on the setup stream, on 6 new streams and
 * on the setup stream again: whether the level belongs to the stream. */
static void cold_variants(void)
{
  static const char *const names[] = {"ew_4k", "ew_256k", "gemm_f16_2k"};
  for (int rep = 0; rep < 2; rep++)
    for (int i = 0; i < 3; i++) {
      kcase *k = kernel_named(names[i]);
      printf("cold %s nosync %.9e\n", k->name, hand_cold(k, 0));
      printf("cold %s sync %.9e\n", k->name, hand_cold(k, 1));
    }
  kcase k = *kernel_named("ew_256k");
  printf("stream setup %.9e\n", hand_device(&k, 500));
  for (int j = 0; j < 6; j++) {
    PERF_CUDA(cudaStreamCreateWithFlags(&k.s, cudaStreamNonBlocking));
    printf("stream new%d %.9e %.9e\n", j, hand_device(&k, 500), hand_device(&k, 500));
  }
  k.s = kernel_named("ew_256k")->s;
  printf("stream setup-again %.9e\n", hand_device(&k, 500));
}

/* "after-load KERNEL": KERNEL's cold-clock median (101 samples) and the SM
 * clock, on a GPU left idle, right after 1 s of KERNEL back to back, and
 * after 1 s more of idling; three times: how much a measurement inherits
 * from the load that ran before it. */
static void after_load(void)
{
  kcase *k = kernel_named(mode_arg[0]);
  perf_workload w = PERF_WORKLOAD(run_k, k, .stream = k->s, .clock = PERF_CLOCK_COLD,
                                  .name = k->name);
  perf__workload_prepare(&w, 1e-3, 1.0);
  static const char *const when[] = {"idle", "after-load", "after-rest"};
  double t[101];
  for (int rep = 0; rep < 3; rep++)
    for (int phase = 0; phase < 3; phase++) {
      struct timespec rest = {1, 0};
      perf__workload_rest_reset();
      if (phase == 0 || phase == 2)
        while (nanosleep(&rest, &rest) != 0 && errno == EINTR) {
        }
      if (phase == 1)
        for (double t0 = perf__clock_now(); perf__clock_now() - t0 < 1.0;) {
          for (int r = 0; r < 16; r++) run_k(k);
          PERF_CUDA(cudaStreamSynchronize(k->s));
        }
      sorted_samples(&w, t, 101);
      printf("after-load %s rep %d %s cold %.9e mhz %u discarded %ld kept %ld\n", k->name, rep,
             when[phase], t[50], w.perf__state->last_mhz, w.perf__state->rt.throttled_discarded,
             w.perf__state->rt.throttled_kept);
    }
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

/* "ncu-target": each of the first four kernels 3 times to warm up, then 11 times, in order;
 * run under Nsight Compute. */
static void ncu_target(void)
{
  for (int i = 0; i < NCU_K; i++)
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
  static kcase fastk = {"ew_16m", EW, (size_t)1 << 24, NULL, NULL}, slowk;
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
               {"aa", aa, 3}, {"power", power, 1}, {"overhead", overhead, 0}, {"launches", launches, 0}, {"placement", placement, 0}, {"drift", drift, 1}, {"streams", streams, 0}, {"compare", compare, 1}, {"cupti-effect", cupti_effect, 0}, {"cold-variants", cold_variants, 0}, {"after-load", after_load, 1}};
  for (size_t i = 0; argc >= 2 && i < sizeof modes / sizeof modes[0]; i++)
    if (!strcmp(argv[1], modes[i].name) && argc == 2 + modes[i].args) mode_fn = modes[i].fn;
  if (!mode_fn) {
    fprintf(stderr, "usage: bench-fidelity medians | compare N|pREL | medians-n N | medians-warm S | ncu-target | aa N KERNEL CLOCK | "
                    "power N | overhead | launches | placement | drift S | streams | cupti-effect | cold-variants | after-load KERNEL\n");
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
  if (res.outcome != PERF_OUTCOME_PASS && res.outcome != PERF_OUTCOME_FAIL) {
    fprintf(stderr, "bench-fidelity: %s: %s\n", perf__status_word(res.outcome), res.reason);
    return 2;
  }
  return 0;
}
