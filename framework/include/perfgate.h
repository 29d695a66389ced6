/* perfgate.h — the one public header: unit-test-style performance assertions for CUDA. */
/* ---- The ABI's values (plain C, no CUDA) ---------------------------------
 * This part alone is what the supervisor's side reads (util/status.h
 * includes it with PERF_ABI_ONLY defined, so that CUDA's headers stay out
 * of it); the rest of the header follows below. */
#ifndef PERFGATE_ABI_H
#define PERFGATE_ABI_H

/* The version of this header; perf_version() gives the library's. The one
 * place the version is written: the Makefile (perfgate.pc), the Python
 * package and --version read it from here. */
#define PERF_VERSION_MAJOR 0
#define PERF_VERSION_MINOR 1
#define PERF_VERSION_PATCH 0

/* The ABI of libperfgate.so (its soname is libperfgate.so.PERF_ABI_VERSION):
 * raised whenever a public struct's layout, an enum's values or a public
 * function's parameters change. perf_abi_describe() describes it for
 * bindings (python/perfgate checks its mirror against it). */
#define PERF_ABI_VERSION 3

/* What became of a test or of one claim, in severity order (a test that
 * makes several claims takes the most severe). X(name, word). */
#define PERF_OUTCOME_MAP(X)      \
  X(PASS, "PASS")                 \
  X(SKIP, "SKIP")                 \
  X(INCONCLUSIVE, "INCONCLUSIVE") \
  X(FAIL, "FAIL")                 \
  X(ERROR, "ERROR")

typedef enum perf_outcome {
#define PERF__X(sym, word) PERF_OUTCOME_##sym,
  PERF_OUTCOME_MAP(PERF__X)
#undef PERF__X
  PERF_OUTCOME_COUNT
} perf_outcome;

/* The kinds of line a test run emits (to the supervisor, or to an
 * embedder's sink, perf_embed_sink). X(name, meaning). */
#define PERF_LINE_KIND_MAP(X)                                             \
  X(DETAIL, "a verdict or detail line of the running test")              \
  X(VERBOSE, "a detail line shown only with --verbose")                  \
  X(INFO, "about the run, not a test: timer floors, the device")         \
  X(NOTICE, "shown once per run whatever the verbosity")                 \
  X(RECORD, "a measurement to record (--update-baselines reads these)")  \
  X(CLAIM, "one claim's record, JSON")

typedef enum perf_line_kind {
#define PERF__X(sym, meaning) PERF_LINE_##sym,
  PERF_LINE_KIND_MAP(PERF__X)
#undef PERF__X
  PERF_LINE_KIND_COUNT
} perf_line_kind;

/* The data type of a workload's declared math (perf_workload's
 * .flop_type): which of the GPU's peak math rates its FLOP/s are a share
 * of (docs/speed-of-light.md). X(name, word); the word names it in reports,
 * baseline files and the history. */
#define PERF_FLOP_TYPE_MAP(X) \
  X(NONE, "none")             \
  X(FP64, "fp64")             \
  X(FP32, "fp32")             \
  X(TF32, "tf32")             \
  X(FP16, "fp16")             \
  X(BF16, "bf16")             \
  X(FP8, "fp8")               \
  X(INT8, "int8")

typedef enum perf_flop_type {
#define PERF__X(sym, word) PERF_FLOP_##sym,
  PERF_FLOP_TYPE_MAP(PERF__X)
#undef PERF__X
  PERF_FLOP_TYPE_COUNT
} perf_flop_type;

/* ---- Clocks ------------------------------------------------------------
 * Every measured number is reported with the clock that produced it.
 *   events  CUDA events recorded on the workload's stream around a batch;
 *           includes the gaps a slow host leaves between launches.
 *   wall    host monotonic clock around a batch; before it stops it waits
 *           for the workload's GPU work: its .stream when that covers all
 *           of it, else the device (nothing when it queued no GPU work).
 *   submit  host time to enqueue a batch, no synchronisation inside the
 *           timed region: what the host pays per iteration (the wait as
 *           for wall comes after the clock stops).
 *   device  kernel-only time: the batch is queued behind a spinning kernel
 *           that the host releases once everything is enqueued, then timed
 *           with events; host launch cost and gaps are excluded. The
 *           iterations must not wait for the GPU (no host sync inside), and
 *           only the workload's stream (or the legacy stream) is held.
 *   cold    the device clock with the L2 cache flushed (a memset of an
 *           L2-sized buffer) before each sample of ONE iteration: what a
 *           call costs when its data is not in L2.
 * AUTO picks events when the workload names a stream, wall otherwise.
 * One row per clock: PERF_CLOCK_<sym> and its name in every report and
 * baseline file. What the runner needs of each clock is its row in
 * framework/src/host/clock.h (the build fails while one lacks it). */
#define PERF_CLOCK_MAP(X) \
  X(EVENTS, "events")     \
  X(WALL, "wall")         \
  X(SUBMIT, "submit")     \
  X(DEVICE, "device")     \
  X(COLD, "cold")

typedef enum perf_clock {
  PERF_CLOCK_AUTO = 0,
#define PERF__X(sym, name) PERF_CLOCK_##sym,
  PERF_CLOCK_MAP(PERF__X)
#undef PERF__X
} perf_clock;

#endif /* PERFGATE_ABI_H */

#if !defined(PERFGATE_H) && !defined(PERF_ABI_ONLY)
#define PERFGATE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void perf_fn(void *arg);
typedef struct perf__wstate perf__wstate;

/* A workload is one iteration of code plus its state. The framework decides
 * how often it runs (warm-up, batch size, samples, interleaving).
 * Where its GPU work goes is found out, not declared: after its first call
 * it runs twice more with CUPTI callbacks (untimed), and every stream it
 * queues work on is followed. The wall and submit clocks then wait for the
 * device when it queued any GPU work outside .stream (for nothing when it
 * queued none); the events, device and cold clocks are an ERROR when work
 * their stream does not wait for exists.
 * What one iteration moves and computes may be declared (0: not declared):
 * reports then give its throughput and share of the GPU's peaks
 * (docs/speed-of-light.md). Bytes: what memory serves and takes (read +
 * written once each); flops: a multiply-add counts 2 (a GEMM: 2mnk). */
typedef struct perf_workload {
  const char *name;          /* unset: the first claim names it as written */
  perf_fn *fn;               /* runs one iteration */
  void *arg;                 /* passed to fn */
  cudaStream_t stream;       /* the stream its GPU work goes to (or joins
                                back to): the GPU clocks time on it */
  perf_clock clock;          /* PERF_CLOCK_AUTO unless set */
  double bytes_read;         /* bytes one iteration reads (0: not declared) */
  double bytes_written;      /* bytes one iteration writes */
  double flops;              /* math operations one iteration does */
  perf_flop_type flop_type;  /* their data type: the peak they are a share of */
  perf__wstate *perf__state; /* owned by the framework; leave unset */
  unsigned long perf__gen;   /* the test perf__state belongs to; leave unset */
} perf_workload;

/* PERF_WORKLOAD(fn, arg[, .stream = s][, .clock = PERF_CLOCK_WALL]
 *               [, .name = "label"][, .bytes_read = n][, .bytes_written = n]
 *               [, .flops = n, .flop_type = PERF_FLOP_FP16])
 * In C++ (a .cu file) fn may be a captureless lambda; the options then go
 * in the order .name, .stream, .clock, .bytes_read, .bytes_written, .flops,
 * .flop_type (C++ designated initialisers), and a
 * lambda or template whose text has a comma outside parentheses (a
 * <<<grid, block>>> launch) is put in parentheses, as for any macro. */
#define PERF_WORKLOAD(...) PERF__WORKLOAD(__VA_ARGS__, )
#ifdef __cplusplus
#define PERF__WORKLOAD(fn_, arg_, ...) perf__workload_of((fn_), (arg_), perf__wopts{__VA_ARGS__})
#define PERF__LIT(type) type /* a struct value: T{...} in C++, (T){...} in C */
#else
#define PERF__WORKLOAD(fn_, arg_, ...) \
  ((perf_workload){.fn = (fn_), .arg = (arg_), __VA_ARGS__})
#define PERF__LIT(type) (type)
#endif

/* ---- Tests -------------------------------------------------------------- */
typedef struct perf__test {
  const char *suite;
  const char *name;
  const char *file;
  int line;
  void (*body)(void);
  struct perf__test *next;
  int opt_in; /* PERF_TEST_OPT_IN */
} perf__test;

void perf__register(perf__test *t);

#define PERF__TEST(suite, name, opt_in)                                      \
  static void perf__body_##suite##__##name(void);                           \
  static perf__test perf__test_##suite##__##name = {                        \
      #suite, #name, __FILE__, __LINE__, perf__body_##suite##__##name, 0,    \
      (opt_in)};                                                             \
  __attribute__((constructor)) static void perf__reg_##suite##__##name(void) \
  {                                                                          \
    perf__register(&perf__test_##suite##__##name);                          \
  }                                                                          \
  static void perf__body_##suite##__##name(void)

/* PERF_TEST(suite, name) { body }: registered before main() runs. */
#define PERF_TEST(suite, name) PERF__TEST(suite, name, 0)
/* PERF_TEST_OPT_IN(suite, name) { body }: a test left out of every run (and
 * of --list) unless --filter names its suite without a wildcard, e.g.
 * --filter='faults.*' (not '*' or 'f*.*'): for tests that break things on
 * purpose, such as the GPU fault suite. */
#define PERF_TEST_OPT_IN(suite, name) PERF__TEST(suite, name, 1)

/* ---- Claims --------------------------------------------------------------
 * EXPECT_* records a failure and the test goes on; ASSERT_* ends the test.
 * Each returns 1 when the claim held, 0 otherwise.
 *   FASTER(a, b, f)    a is at least f times faster than b (median per
 *                      iteration, same clock, interleaved ABBA rounds).
 *   SIMILAR(a, b, tol) median(a)/median(b) lies within [1/(1+tol), 1+tol].
 *   TRUE(cond)         a plain logic check (e.g. a result is correct). */
#define PERF__HERE __FILE__, __LINE__
/* Where a claim is made (fatal: an ASSERT), and its operands as written: #a, #b, #var or #scale. */
typedef struct perf__site { const char *file; int line, fatal; } perf__site;
typedef struct perf__names { const char *a, *b, *c; } perf__names;
#define PERF__SITE(fatal) (PERF__LIT(perf__site){__FILE__, __LINE__, (fatal)})
#define PERF__NAMES(a, b, c) (PERF__LIT(perf__names){(a), (b), (c)})
#define PERF_EXPECT_FASTER(a, b, factor) PERF__RATIO(perf__faster, a, b, factor, #a, #b, 0)
#define PERF_ASSERT_FASTER(a, b, factor) PERF__RATIO(perf__faster, a, b, factor, #a, #b, 1)
#define PERF_EXPECT_SIMILAR(a, b, tolerance) PERF__RATIO(perf__similar, a, b, tolerance, #a, #b, 0)
#define PERF_ASSERT_SIMILAR(a, b, tolerance) PERF__RATIO(perf__similar, a, b, tolerance, #a, #b, 1)
#define PERF__RATIO(claim, a, b, x, an, bn, fatal) \
  claim(&(a), &(b), (x), PERF__NAMES(an, bn, NULL), PERF__SITE(fatal))
#define PERF_EXPECT_TRUE(cond) perf__truth(!!(cond), #cond, PERF__SITE(0))
#define PERF_ASSERT_TRUE(cond) perf__truth(!!(cond), #cond, PERF__SITE(1))

/* ---- Sweeps --------------------------------------------------------------
 * PERF_SWEEP(var, values) { body } runs the body once per value, with `long
 * var` set to it, in order (64 points at most; sweeps do not nest). Declare
 * the workloads inside: each point measures its own. Claims in the body are
 * per point ("[n=256]" after their location). `break` or `continue` ends the
 * point; leaving the sweep by return or goto is an ERROR.
 *   PERF_VALUES(1000, 3000, 10000)   the values listed
 *   PERF_POW2(16, 4096)              every power of two in [16, 4096]
 * PERF_EXPECT_CROSSOVER(a, b, var, lo, hi), inside the body: a is slower
 * than b at small var, faster at large var, and turns within [lo, hi]; each
 * point is compared as FASTER is, with a tie margin of 5 %
 * (PERF_EXPECT_CROSSOVER_TIE sets it). It FAILs on a contrary point or a
 * second turn, PASSes when the bracket lies in [lo, hi], else INCONCLUSIVE;
 * before its last point it returns 1. docs/writing-tests.md has the rule. */
typedef struct perf_values {
  const long *list;      /* PERF_VALUES */
  size_t n;
  long pow2_lo, pow2_hi; /* PERF_POW2 */
} perf_values;
#ifdef __cplusplus
/* the list lives until the end of the statement that opens the sweep,
 * which copies it */
#define PERF_VALUES(...) perf__values_of({__VA_ARGS__})
#else
#define PERF_VALUES(...)                                                  \
  ((perf_values){.list = (const long[]){__VA_ARGS__},                     \
                 .n = sizeof((const long[]){__VA_ARGS__}) / sizeof(long)})
#endif
#define PERF_POW2(lo, hi) (PERF__LIT(perf_values){NULL, 0, (lo), (hi)})

typedef struct perf__sweep {
  int state;  /* 0 before the first point, then 1 */
  long value; /* the current point's value */
} perf__sweep;

#define PERF_SWEEP(var, values)                                              \
  for (perf__sweep perf__sweep_ = perf__sweep_open(#var, (values), PERF__HERE); \
       perf__sweep_step(&perf__sweep_);)                                      \
    for (__attribute__((unused)) long var = perf__sweep_.value, perf__point_once_ = 1; \
         perf__point_once_; perf__point_once_ = 0)
#define PERF_EXPECT_CROSSOVER(a, b, var, lo, hi) PERF_EXPECT_CROSSOVER_TIE(a, b, var, lo, hi, 0.05)
#define PERF_ASSERT_CROSSOVER(a, b, var, lo, hi) PERF_ASSERT_CROSSOVER_TIE(a, b, var, lo, hi, 0.05)
#define PERF_EXPECT_CROSSOVER_TIE(a, b, var, lo, hi, tie)                     \
  perf__crossover(&(a), &(b), (long)(var), PERF__RANGE(lo, hi), (double)(tie), \
                  PERF__NAMES(#a, #b, #var), PERF__SITE(0))
#define PERF_ASSERT_CROSSOVER_TIE(a, b, var, lo, hi, tie)                     \
  perf__crossover(&(a), &(b), (long)(var), PERF__RANGE(lo, hi), (double)(tie), \
                  PERF__NAMES(#a, #b, #var), PERF__SITE(1))
typedef struct perf__range { double lo, hi; } perf__range; /* CROSSOVER's [lo, hi] */
#define PERF__RANGE(lo, hi) (PERF__LIT(perf__range){(double)(lo), (double)(hi)})

perf__sweep perf__sweep_open(const char *var, perf_values values, const char *file,
                             int line);
int perf__sweep_step(perf__sweep *s);
int perf__crossover(perf_workload *a, perf_workload *b, long value, perf__range range,
                    double tie, perf__names names, perf__site at);

/* ---- Host syncs ----------------------------------------------------------
 * Checked in a separate, untimed pass with CUPTI callbacks on the runtime
 * and driver APIs (never during timing). A workload runs once to warm up,
 * then PERF_SYNC_ITERATIONS times with the callbacks on; counts are per
 * iteration. Each finding names the API, why it blocks, and the call site.
 *   PERF_NO_SYNC_IN(w);               w (or a pointer to it) never blocks
 *                                     the host; takes no block
 *   PERF_NO_SYNC_IN("name") { ... }   the block, run once, never blocks;
 *                                     leave it by its end or `break`, not
 *                                     by return/goto (that is an ERROR).
 * Checks cannot nest, and nothing is timed inside a region.
 *   PERF_EXPECT_SYNCS(w, n)           exactly n host syncs per iteration
 *   PERF_EXPECT_SYNCS_AT_LEAST(w, n)  at least n per iteration
 * If CUPTI cannot attach (a profiler holds it), the check fails; with
 * --allow-no-sync-check it is skipped instead. */
#define PERF_SYNC_ITERATIONS 3
#define PERF_NO_SYNC_IN(x) PERF__SYNC_SCOPE(x, 0)
#define PERF_ASSERT_NO_SYNC_IN(x) PERF__SYNC_SCOPE(x, 1)
/* The outer loop runs the region once and then judges it; the inner
 * one-pass loop lets a `break` in the region end the region, not skip the
 * verdict. A workload (or pointer to one) is checked at once; a string
 * names a region; anything else does not compile. */
#ifdef __cplusplus
#define PERF__SYNC_KIND(x) perf__sync_kind(x)
#else
#define PERF__SYNC_KIND(x) \
  _Generic((x), perf_workload: 1, perf_workload *: 2, char *: 0, const char *: 0)
#endif
#define PERF__SYNC_SCOPE(x, fatal)                                          \
  for (perf__sync_scope perf__scope_ = perf__sync_open(                     \
           PERF__SYNC_KIND(x), (void *)&(x), #x, PERF__SITE(fatal));        \
       perf__sync_step(&perf__scope_);)                                     \
    for (int perf__once_ = 1; perf__once_; perf__once_ = 0)
#define PERF_EXPECT_SYNCS(w, n) \
  perf__expect_syncs(&(w), (n), 0, #w, PERF__SITE(0))
#define PERF_ASSERT_SYNCS(w, n) \
  perf__expect_syncs(&(w), (n), 0, #w, PERF__SITE(1))
#define PERF_EXPECT_SYNCS_AT_LEAST(w, n) \
  perf__expect_syncs(&(w), (n), 1, #w, PERF__SITE(0))
#define PERF_ASSERT_SYNCS_AT_LEAST(w, n) \
  perf__expect_syncs(&(w), (n), 1, #w, PERF__SITE(1))

/* One kind of host sync found by the last sync check of the running test. */
typedef struct perf_sync_finding {
  const char *api;    /* the call the user made: "cudaMemcpy" (runtime name
                         where there is one, driver name otherwise) */
  const char *why;    /* "synchronous, device->host", "explicit ..." */
  const char *inside; /* library function it happened in, or "" */
  const char *where;  /* "file:line (function)" of the call site */
  int line;           /* line of the call site; 0 when unknown */
  int per_iteration;  /* count per iteration; -1 when iterations differ */
} perf_sync_finding;

/* The findings of the last sync check in this test (*n of them); valid
 * until the next check or the end of the test. */
const perf_sync_finding *perf_sync_findings(size_t *n);

typedef struct perf__sync_scope {
  int state;
  const char *text;
  perf__site at;
} perf__sync_scope;

perf__sync_scope perf__sync_open(int is_workload, void *x, const char *text, perf__site at);
int perf__sync_step(perf__sync_scope *s);
int perf__expect_syncs(perf_workload *w, int n, int at_least, const char *wn, perf__site at);

/* ---- Baselines -----------------------------------------------------------
 * PERF_EXPECT_BASELINE(w): w's median time per iteration is not slower than
 * this machine's baseline entry (baselines/<gpu>.yaml; the CPU's file for
 * host-only work) beyond its tolerance AND beyond the noise of both
 * measurements. No file or no entry: the check is skipped (with
 * --strict-baselines the run exits 2). With --update-baselines the
 * measurement is recorded instead. */
#define PERF_EXPECT_BASELINE(w) perf__expect_baseline(&(w), #w, PERF__SITE(0))
#define PERF_ASSERT_BASELINE(w) perf__expect_baseline(&(w), #w, PERF__SITE(1))
int perf__expect_baseline(perf_workload *w, const char *wn, perf__site at);

/* ---- Work ----------------------------------------------------------------
 * PERF_EXPECT_SAME_WORK(w): one call of w executes the same GPU work as
 * this GPU's baseline file records for it: its warp instructions
 * (sm__inst_executed.sum, counted by CUPTI's range profiler in an untimed
 * pass after one warm call) within 0.5 %; its DRAM bytes read are
 * reported beside them. Counts do not move with clocks or neighbours, so
 * the claim decides in one run on a shared runner. No count in the file,
 * or counters this machine does not let perfgate read (a vGPU, a MIG
 * instance, NVreg_RestrictProfilingToAdminUsers=1): the check is skipped,
 * saying why. With --update-baselines the count is recorded instead. */
#define PERF_EXPECT_SAME_WORK(w) perf__expect_same_work(&(w), #w, PERF__SITE(0))
#define PERF_ASSERT_SAME_WORK(w) perf__expect_same_work(&(w), #w, PERF__SITE(1))
int perf__expect_same_work(perf_workload *w, const char *wn, perf__site at);

/* ---- Speed of light --------------------------------------------------------
 * PERF_EXPECT_BANDWIDTH(w, share): w moves its declared bytes (read plus
 * written) at no less than share (0.8: 80 %) of the DRAM bandwidth this GPU
 * achieves, measured by perfgate's streaming copy in the same ABBA rounds,
 * on w's stream and clock, and decided as FASTER is. A working set below
 * twice the L2 needs .clock = PERF_CLOCK_COLD.
 * PERF_EXPECT_FLOPS(w, share): the same for .flops against a large cuBLASLt
 * GEMM of its .flop_type. PERF_EXPECT_LINK_BANDWIDTH(w, share): the same
 * for copies between host and device against pinned copies the same ways.
 * A claim this machine cannot calibrate is skipped, saying why; w without
 * declared work is an ERROR (docs/speed-of-light.md). */
/* The bytes a working set needs so that streaming it comes from DRAM on the
 * current CUDA device, not from its L2: the larger of at_least and 4 x the
 * L2 the device reports, rounded up to a whole MiB (a 64 MiB buffer is
 * beyond an H100's 50 MiB L2 but mostly inside an H200's 60 MiB one; 4 x
 * leaves a streaming pass little to find in L2 on any GPU). Size a
 * BANDWIDTH claim's buffers with it rather than with one card's figure.
 * at_least when there is no device or it does not say its L2. Never fails
 * (a CUDA error of the query is cleared). */
size_t perf_bytes_beyond_l2(size_t at_least);
#define PERF_EXPECT_BANDWIDTH(w, share) perf__speed_of_light(&(w), (share), 0, #w, PERF__SITE(0))
#define PERF_ASSERT_BANDWIDTH(w, share) perf__speed_of_light(&(w), (share), 0, #w, PERF__SITE(1))
#define PERF_EXPECT_FLOPS(w, share) perf__speed_of_light(&(w), (share), 1, #w, PERF__SITE(0))
#define PERF_ASSERT_FLOPS(w, share) perf__speed_of_light(&(w), (share), 1, #w, PERF__SITE(1))
#define PERF_EXPECT_LINK_BANDWIDTH(w, share) \
  perf__speed_of_light(&(w), (share), 2, #w, PERF__SITE(0))
#define PERF_ASSERT_LINK_BANDWIDTH(w, share) \
  perf__speed_of_light(&(w), (share), 2, #w, PERF__SITE(1))
/* what: 0 DRAM bandwidth, 1 math, 2 host-link bandwidth. */
int perf__speed_of_light(perf_workload *w, double share, int what, const char *wn, perf__site at);

/* ---- Results --------------------------------------------------------------
 * PERF_EXPECT_NEAR(got, want, n, tol): |got[i] - want[i]| <= tol for each of
 * n doubles; PERF_EXPECT_NEAR_SCALED(got, want, scale, n, tol): <= tol *
 * scale[i] (a relative check: scale[i] > 0 is the size entry i is measured
 * against). A NaN in got or want fails; n < 1, a tolerance that is not a
 * number >= 0, or a scale that is not a finite number > 0 is an ERROR. One claim, like TRUE; its line names the
 * worst entry: "NEAR(c, ref, 64, 0.001) at f.c:9: worst error 2.1e-05 at
 * [17] (got 3.25, want 3.25003) holds". */
#define PERF_EXPECT_NEAR(got, want, n, tol) \
  PERF__NEAR(got, want, NULL, n, tol, PERF__NAMES(#got, #want, NULL), 0)
#define PERF_ASSERT_NEAR(got, want, n, tol) \
  PERF__NEAR(got, want, NULL, n, tol, PERF__NAMES(#got, #want, NULL), 1)
#define PERF_EXPECT_NEAR_SCALED(got, want, scale, n, tol) \
  PERF__NEAR(got, want, scale, n, tol, PERF__NAMES(#got, #want, #scale), 0)
#define PERF_ASSERT_NEAR_SCALED(got, want, scale, n, tol) \
  PERF__NEAR(got, want, scale, n, tol, PERF__NAMES(#got, #want, #scale), 1)
#define PERF__NEAR(got, want, scale, n, tol, names, fatal) \
  perf__near((got), (want), (scale), (long long)(n), (tol), names, PERF__SITE(fatal))
int perf__near(const double *got, const double *want, const double *scale, long long n,
               double tol, perf__names names, perf__site at);

/* ---- Test resources -------------------------------------------------------
 * What a test registers here is released when the test ends, however it
 * ends (its body returned, an ASSERT or a CUDA error ended it, it was
 * skipped), last registered first, before the next test starts; inside a
 * PERF_SWEEP body, when the point ends:
 *   PERF_ALLOC_DEVICE(p, bytes)  p = cudaMalloc'd device memory
 *   PERF_ALLOC_PINNED(p, bytes)  p = cudaMallocHost'd (page-locked) memory
 *   PERF_ALLOC_HOST(p, bytes)    p = zeroed pageable memory from a page's
 *                                start (a CPU loop's time does not hang on
 *                                where the heap put it); every byte is
 *                                written here, unlike calloc's
 *   PERF_DEFER(fn, arg)          fn(arg) at the end of the test
 * p is any pointer lvalue. A failed allocation ends the test: FAIL naming
 * the call, or SKIP when there is no CUDA device. A cleanup that fails a
 * check (a PERF_CUDA on its call, an EXPECT) fails a test that had passed or
 * was skipped; one that skips a passing test makes it an ERROR; the reason
 * names where the cleanup was registered. */
typedef enum perf__alloc_kind {
  PERF__ALLOC_DEVICE,
  PERF__ALLOC_PINNED,
  PERF__ALLOC_HOST
} perf__alloc_kind;
#ifdef __cplusplus
#define PERF__POINTER(x) (perf__any_pointer{(x)}) /* converts to p's type */
#else
#define PERF__POINTER(x) (x)
#endif
#define PERF_ALLOC_DEVICE(p, bytes) \
  ((p) = PERF__POINTER(perf__alloc(PERF__ALLOC_DEVICE, (bytes), #p, PERF__HERE)))
#define PERF_ALLOC_PINNED(p, bytes) \
  ((p) = PERF__POINTER(perf__alloc(PERF__ALLOC_PINNED, (bytes), #p, PERF__HERE)))
#define PERF_ALLOC_HOST(p, bytes) \
  ((p) = PERF__POINTER(perf__alloc(PERF__ALLOC_HOST, (bytes), #p, PERF__HERE)))
#define PERF_DEFER(fn, arg) perf__defer((fn), (arg), PERF__HERE)
void *perf__alloc(perf__alloc_kind kind, size_t bytes, const char *expr, const char *file, int line);
void perf__defer(void (*fn)(void *), void *arg, const char *file, int line);

/* Ends the test as SKIPPED with a printf-style reason. */
#define PERF_SKIP(...) perf__skip(PERF__HERE, __VA_ARGS__)
/* Skips the test unless at least n CUDA devices are usable. A test needs
 * it only for n >= 2: any CUDA call checked with PERF_CUDA (or a
 * PERF_ALLOC_*, or a claim on GPU work) skips the test when there is no
 * CUDA device, with the reason. So does a claim whose workload (or the
 * test's body before it) made a CUDA call that failed, checked or not:
 * without a device the test is skipped, with one it is an ERROR naming the
 * call; such a workload is never timed. */
#define PERF_REQUIRE_GPUS(n) perf__require_gpus((n), PERF__HERE)
/* Ends the test as FAILED, naming the call and the CUDA error, when call does
 * not return cudaSuccess; "no device" errors skip the test instead. */
#define PERF_CUDA(call) perf__cuda_check((call), #call, PERF__HERE)
/* Same for a cuBLAS call (cublasStatus_t). */
#define PERF_CUBLAS(call) perf__cublas_check((int)(call), #call, PERF__HERE)

int perf__faster(perf_workload *a, perf_workload *b, double factor, perf__names names,
                 perf__site at);
int perf__similar(perf_workload *a, perf_workload *b, double tolerance, perf__names names,
                  perf__site at);
int perf__truth(int ok, const char *expr, perf__site at);
void perf__skip(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
void perf__require_gpus(int n, const char *file, int line);
void perf__cuda_check(cudaError_t err, const char *expr, const char *file,
                      int line);
void perf__cublas_check(int status, const char *expr, const char *file,
                        int line);

/* ---- Embedding: claims run from another test runner -------------------
 * The Python package (python/) runs claims through these, from
 * libperfgate.so: perf_embed_begin starts a test named name in this
 * process (no runner, no worker process), each claim call runs one claim
 * as PERF_EXPECT_FASTER / PERF_EXPECT_SIMILAR do, and perf_embed_end ends
 * the test. Every line and claim record goes to sink(kind, text, ctx),
 * kind a perf_line_kind (PERF_LINE_CLAIM: one claim's record as JSON, the
 * --json report's claim objects). One test at a time per process, driven
 * from the thread that began it: a call from inside a running claim (a
 * workload calling perfgate) or from another thread returns -2 and does
 * nothing. */
typedef void perf_embed_sink(int kind, const char *text, void *ctx);
typedef struct perf_embed_options {
  double budget_s;          /* sampling time per claim (0: 2 s) */
  unsigned long long seed;  /* bootstrap seed (0: 1) */
  const char *baseline_dir; /* NULL: "baselines" */
  int verbose;
  int update_baselines;     /* measure for the baseline file, as
                               --update-baselines: the PERF_LINE_RECORD lines
                               then carry the measurements */
} perf_embed_options;
/* The ABI of this library as one JSON object, for bindings to check their
 * mirror of it: {"abi": PERF_ABI_VERSION, "version": "M.m.p", "structs":
 * {NAME: {"size": S, "fields": {MEMBER: [OFFSET, SIZE]}}} for perf_workload,
 * perf_embed_options, perf_embed_measurements and perf_embed_run, "enums":
 * {"perf_clock": {NAME: VALUE}, "perf_outcome": {WORD: VALUE},
 * "perf_line_kind": {NAME: VALUE}, "perf_flop_type": {WORD: VALUE}}}: a
 * static string. Never fails. */
const char *perf_abi_describe(void);
/* Returns 0, or 2 when a test is already running. o may be NULL. */
int perf_embed_begin(const char *name, const perf_embed_options *o, perf_embed_sink *sink,
                     void *ctx);
/* Each returns 1 when the claim held, 0 when it did not (FAIL or
 * INCONCLUSIVE: its record says which), or -1 when the test has ended
 * (an ERROR or a skip ended it; the sink has the reason) or none runs. */
int perf_embed_faster(perf_workload *a, perf_workload *b, double factor, const char *an,
                      const char *bn, const char *file, int line);
int perf_embed_similar(perf_workload *a, perf_workload *b, double tolerance, const char *an,
                       const char *bn, const char *file, int line);
/* PERF_EXPECT_BANDWIDTH (what 0), PERF_EXPECT_FLOPS (1) or
 * PERF_EXPECT_LINK_BANDWIDTH (2): 1 held, 0 not (or skipped: its line says
 * why), -1 as above. */
int perf_embed_speed_of_light(perf_workload *w, double share, int what, const char *wn,
                              const char *file, int line);
/* PERF_EXPECT_BASELINE: 1 held, 0 slower than its baseline entry or no
 * entry to compare with (a line says which), -1 as above. */
int perf_embed_baseline(perf_workload *w, const char *wn, const char *file, int line);
/* PERF_EXPECT_SAME_WORK: 1 held (or, updating, recorded), 0 not (or
 * skipped: no count in the file, counters not readable here; a line says
 * why), -1 as above (no GPU: the test is skipped). */
int perf_embed_same_work(perf_workload *w, const char *wn, const char *file, int line);
/* Host syncs, as PERF_EXPECT_SYNCS(_AT_LEAST) checks them: 1 held, 0 not,
 * -1 as above. */
int perf_embed_syncs(perf_workload *w, int n, int at_least, const char *wn, const char *file,
                     int line);
/* PERF_NO_SYNC_IN: with w, checks it at once and returns 0 (then call
 * perf_embed_no_sync_close for the verdict); with w NULL, attaches the
 * check and returns 1: run the region, then call perf_embed_no_sync_close
 * (0: the check could not look; close still reports). -1 as above. */
int perf_embed_no_sync_open(perf_workload *w, const char *text, const char *file, int line);
/* Ends the check perf_embed_no_sync_open began: 1 held, 0 not, -1 as
 * above. */
int perf_embed_no_sync_close(void);
/* Names a host sync's call site in the embedder's language: fn writes
 * "file:line (function)" of the innermost frame of the user's code into
 * out[len] and returns 0 (non-zero: none found). It runs in a CUPTI
 * callback, on the thread that made the call. NULL clears it. */
typedef int perf_embed_where(char *out, size_t len);
void perf_embed_set_where(perf_embed_where *fn);
/* How many runs --update-baselines takes of every test (5): an embedder
 * runs its tests that many times, numbered 0 to this less one, then more
 * runs of the tests perf_embed_wants_more names. Never fails. */
int perf_embed_update_runs(void);
/* perftest's defaults for the most runs an entry takes (--update-runs, 12)
 * and the most seconds the runs past the first 5 take (--update-budget,
 * 600), into *most_runs and *budget_s (either may be NULL). Never fails. */
void perf_embed_update_limits(int *most_runs, double *budget_s);
/* The PERF_LINE_RECORD lines an embedder's tests emitted with update_baselines set. */
typedef struct perf_embed_measurements {
  const char *const *lines; /* lines[0..n) */
  const int *runs; /* runs[k]: the run lines[k] came from (from 0, below perf_embed_update_runs(),
                      then the later runs perf_embed_wants_more asked for, below 16) */
  size_t n;
} perf_embed_measurements;
/* 1 when test should run again as run `run` (perf_embed_update_runs() up
 * to max_runs - 1, max_runs at most 16) of an update whose runs so far gave
 * *m: an entry of it has not settled (a run left out, runs that disagree, a
 * tolerance near the ceiling), named in why[len] ("workload: why"); 0 when
 * not (a test that failed in a run never runs again: a failure is the
 * embedder's to report); -1 with the reason in why[len] for a run out of
 * range or a malformed line. */
int perf_embed_wants_more(const perf_embed_measurements *m, const char *test, int run,
                          int max_runs, char *why, size_t len);
/* What --update-baselines checks before it runs anything, for an embedder
 * that is about to run its tests perf_embed_update_runs() times: every
 * baseline file of dir is valid (a malformed one, a file no run reads, a
 * directory that cannot be read), and this host's file is not another
 * machine's. Returns 0, or 2 with each problem, one per line, in err[len]
 * (truncated to fit), after "who: " (the embedder's option, e.g.
 * "--perf-update-baselines"). A directory that does not exist yet is no
 * problem: the update creates it. */
int perf_embed_check_baselines(const char *dir, const char *who, char *err, size_t len);
/* --update-baselines for an embedder: the entries of *m measured in all runs
 * are merged into each machine's baseline file as perftest --update-baselines
 * merges them (a table of what moved on stdout; accept_wide as --accept-wide).
 * Returns 0; 1 when entries were not written (their runs disagree, their
 * tolerance is over the ceiling, or they were launch-bound, without
 * accept_wide: the others are), named in err[len]; or 2 with the reason in
 * err[len] (a malformed line or file, a file that cannot be written). */
int perf_embed_rebaseline(const perf_embed_measurements *m, int accept_wide, char *err, size_t len);
/* The run an embedder's report describes: argv[0..argc), its command line
 * (NULL when argc is 0; passwords masked), and when it started. */
typedef struct perf_embed_run {
  const char *const *argv;
  int argc;
  const char *run_json; /* NULL, or a JSON object: members to end "run" with (none perfgate's) */
  double started;       /* seconds since the epoch */
} perf_embed_run;
/* An embedder's report (the pytest plugin's --perf-json): the
 * perfgate-report/1 document perftest --json writes, by the same writer, to
 * path (replaced atomically). tests_json: a JSON array of the run's tests,
 * each an object with at least "name" and "outcome" (a perf_outcome's word),
 * written as given ("claims": the PERF_LINE_CLAIM records, "lines": the
 * detail lines). perfgate writes the rest (schema, version, exit code, shard
 * 0 of 1, totals, an empty preflight, this host's fingerprint). Returns 0, or
 * 2 with the reason in err[len] (bad JSON or argument, an unknown outcome,
 * out of memory, a path that cannot be written: then left as it was).
 * Nothing is kept; needs no test begun. */
int perf_embed_report(const char *path, const char *tests_json, const perf_embed_run *run,
                      char *err, size_t len);
/* Ends the test: its outcome (0 PASS, 1 SKIP, 2 INCONCLUSIVE, 3 FAIL,
 * 4 ERROR) and, for anything but PASS, its reason in reason[len]; -1
 * when none runs. */
int perf_embed_end(char *reason, size_t len);

/* How many host threads a workload may use (OpenMP's num_threads, a thread
 * pool's size): the CPUs this process may run on (its affinity mask,
 * capped by the cgroup's cpu.max quota), shared with the other perfgate
 * runs on this host (the lock directory; docs/noise.md, "Host threads"), less
 * one CPU kept for the runner when that leaves one; at least 1; capped
 * by OMP_NUM_THREADS when that is set. Reads a few files: call it once
 * per test, not inside a timed workload. Never fails. */
int perf_host_threads(void);

/* The library's version, "MAJOR.MINOR.PATCH" (the one it was built from:
 * compare with the PERF_VERSION_* macros of the header a program was
 * compiled with). Never fails. */
const char *perf_version(void);

/* The runner's entry point; libperfgate.a supplies a main() that calls it.
 * Returns the process exit code: 0 all passed (skips allowed), 1 a check
 * failed, 2 usage error or nothing could run. */
int perf_main(int argc, char **argv);

#ifdef __cplusplus
}

/* ---- C++ (CUDA C++ in .cu files, compiled by nvcc) ---------------------
 * What the macros above use where C's compound literals, _Generic and
 * void * conversions do not exist. */
#include <initializer_list>

/* PERF_WORKLOAD's options, in the order C++ wants them written. */
struct perf__wopts {
  const char *name = NULL;
  cudaStream_t stream = NULL;
  perf_clock clock = PERF_CLOCK_AUTO;
  double bytes_read = 0;
  double bytes_written = 0;
  double flops = 0;
  perf_flop_type flop_type = PERF_FLOP_NONE;
};

static inline perf_workload perf__workload_of(perf_fn *fn, void *arg, perf__wopts o)
{
  perf_workload w = {};
  w.name = o.name;
  w.fn = fn;
  w.arg = arg;
  w.stream = o.stream;
  w.clock = o.clock;
  w.bytes_read = o.bytes_read;
  w.bytes_written = o.bytes_written;
  w.flops = o.flops;
  w.flop_type = o.flop_type;
  return w;
}

static inline perf_values perf__values_of(std::initializer_list<long> v)
{
  return perf_values{v.begin(), v.size(), 0, 0};
}

static inline int perf__sync_kind(const perf_workload &) { return 1; }
static inline int perf__sync_kind(const perf_workload *) { return 2; }
static inline int perf__sync_kind(const char *) { return 0; }

/* perf__alloc's void *, converted to the pointer it is assigned to. */
struct perf__any_pointer {
  void *p;
  template <class T> operator T *() const { return static_cast<T *>(p); }
};
#endif
#endif /* PERFGATE_H */
