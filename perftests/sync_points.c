/* sync_points.c — document 003's benchmark: a host sync's cost around GEMMs, by size and dtype. */
#include "gemm.h"
#include "perfgate.h"

static void gemm_sync_each(void *arg)
{
  gemm_fixture *f = arg;
  gemm_once(f);
  PERF_CUDA(cudaStreamSynchronize(f->stream));
}

/* Document 003, SMALL GEMM: 512x512 fp16, "forced sync each iter" costs
 * 35-83 % over queueing asynchronously. Events on the GEMM's stream time the
 * whole loop, host gaps included: that is what the sync costs. */
PERF_TEST(sync_points, small_gemm_async_beats_sync_each)
{
  gemm_fixture f;
  gemm_init(&f, 512);
  gemm_verify(&f);
  perf_workload async = PERF_WORKLOAD(gemm_once, &f, .stream = f.stream);
  perf_workload sync_each = PERF_WORKLOAD(gemm_sync_each, &f, .stream = f.stream);
  PERF_EXPECT_FASTER(async, sync_each, 1.3);
}

/* 003, BIG GEMM: "Forced sync timing (BIG GEMM, FP16: ~25.2 ms/iter, +0.98%)
 * ... The slowdown is minimal because the kernel is extremely heavy". On an
 * 8192^2 fp16 GEMM (about 1.5 ms on an H100) one sync per iteration is within
 * 3 %: SIMILAR at a tolerance well above the sync's ~10 us. */
PERF_TEST(sync_points, big_gemm_sync_each_costs_little)
{
  gemm_fixture f;
  gemm_init(&f, 8192);
  gemm_wrote_c(&f);
  perf_workload async = PERF_WORKLOAD(gemm_once, &f, .stream = f.stream);
  perf_workload sync_each = PERF_WORKLOAD(gemm_sync_each, &f, .stream = f.stream);
  /* 13 %, not the document's ~1 %: over 20 suite runs on the H100 the
   * intervals' worst edge reached 1.073 (headroom reports, 2026-11-22);
   * 13 % keeps 5 % of headroom and still says "a small cost". */
  PERF_EXPECT_SIMILAR(async, sync_each, 0.13);
  /* Against this GPU's baselines/<gpu>.yaml. The big GEMM, not the small
   * one: a 512^2 GEMM's time moves by up to half between processes on the
   * H100 (7-12 us), an 8192^2 one's by well under 1 %. */
  PERF_EXPECT_BASELINE(async);
}

/* .item(): one element of C to the host, synchronously. */
static void read_scalar(void *a)
{
  gemm_fixture *f = a;
  PERF_CUDA(cudaMemcpy(f->scalar, f->c, gemm_elem_size(f->type), cudaMemcpyDeviceToHost));
}

static void read_while_busy(void *a)
{
  gemm_fixture *f = a;
  gemm_once(f);
  read_scalar(f); /* an .item(): waits for the queued GEMM */
}

/* 003: ".item() requests a CPU scalar from a GPU tensor. If the producing
 * kernel is still running, .item() blocks until completion. The measured
 * time closely matches the full GEMM runtime" and ".item() after explicit
 * sync (~0.13 ms) ... measures only device->host transfer". Wall clock: the
 * host's wait is the point. */
PERF_TEST(sync_points, scalar_read_waits_for_queued_work)
{
  gemm_fixture f;
  gemm_init(&f, 8192);
  gemm_wrote_c(&f);
  perf_workload busy = PERF_WORKLOAD(read_while_busy, &f, .clock = PERF_CLOCK_WALL);
  perf_workload full = PERF_WORKLOAD(gemm_sync_each, &f, .clock = PERF_CLOCK_WALL);
  perf_workload idle = PERF_WORKLOAD(read_scalar, &f, .clock = PERF_CLOCK_WALL);
  /* the read costs the whole queue: within 15 % (intervals' worst edge 1.08
   * over 10 runs on an H200, 2026-11-22; 15 % keeps 5 % of headroom) */
  PERF_EXPECT_SIMILAR(busy, full, 0.15);
  PERF_EXPECT_FASTER(idle, busy, 20);    /* and is cheap on an idle device */
  PERF_EXPECT_SYNCS(busy, 1);
}

/* Times an 8192^2 GEMM of type t against fp32's. */
static void lower_precision_beats_fp32(cudaDataType t, double factor)
{
  gemm_fixture lo, fp32;
  gemm_init_typed(&lo, 8192, t);
  gemm_init_typed(&fp32, 8192, CUDA_R_32F);
  gemm_wrote_c(&lo);
  gemm_wrote_c(&fp32);
  double flops = 2.0 * 8192 * 8192 * 8192;
  perf_workload fast = PERF_WORKLOAD(gemm_once, &lo, .stream = lo.stream, .flops = flops,
                                     .flop_type = t == CUDA_R_16F ? PERF_FLOP_FP16 : PERF_FLOP_BF16);
  perf_workload slow = PERF_WORKLOAD(gemm_once, &fp32, .stream = fp32.stream, .flops = flops,
                                     .flop_type = PERF_FLOP_FP32);
  PERF_EXPECT_FASTER(fast, slow, factor);
  /* Speed of light: cuBLAS's GEMM behind this claim gets what cuBLASLt's
   * heuristic pick for the type gets, timed in the same rounds (H100,
   * 2026-11-26: fp16 0.994 [0.988, 1.041] of 689 TFLOP/s, bf16 0.998
   * [0.975, 1.019] of 707; 64-66 % of the spec peak at 1980 MHz). fp32's
   * own claim (1.007 of 51 TFLOP/s) is left out: 1.1-1.5 s of suite time
   * for a kernel no document claims anything of; its throughput is still
   * reported. */
  PERF_EXPECT_FLOPS(fast, 0.9);
}

/* 003: "FP16 / BF16: ~20-25 ms, FP32: ~70 ms" — tensor-core types are much
 * faster than strict fp32 at 8192^2: by the document's least, 70 / 25 =
 * 2.8x (H100 and H200: 14-15x; an L4's spec peaks are only 4.0x apart,
 * 121 vs 30.3 TFLOP/s dense, so a higher factor would fail there). */
PERF_TEST(sync_points, fp16_gemm_much_faster_than_fp32)
{
  lower_precision_beats_fp32(CUDA_R_16F, 2.8);
}

PERF_TEST(sync_points, bf16_gemm_much_faster_than_fp32)
{
  lower_precision_beats_fp32(CUDA_R_16BF, 2.8);
}

/* Three 512^2 GEMMs, one of each type, on one stream, in a given order; the
 * host then waits for them (or not). */
typedef struct three_gemms {
  gemm_fixture g[3]; /* fp16, bf16, fp32 */
  cudaStream_t s;
} three_gemms;

enum { F16, BF16, F32 };

static void three_then_sync(three_gemms *t, int first, int last, int sync)
{
  gemm_once(&t->g[first]);
  gemm_once(&t->g[3 - first - last]);
  gemm_once(&t->g[last]);
  if (sync) PERF_CUDA(cudaStreamSynchronize(t->s));
}

static void f16_last(void *a) { three_then_sync(a, F32, F16, 1); }
static void bf16_last(void *a) { three_then_sync(a, F32, BF16, 1); }
static void no_sync(void *a) { three_then_sync(a, F32, F16, 0); }

/* 003, Observation 5: "FP16, BF16, FP32 show similar synchronization overhead
 * (~10-15 us) ... Synchronization overhead is largely dtype-independent."
 * Both workloads queue the same three GEMMs (same kernel and launch work, the
 * same one first) and sync once, after an fp16 or after a bf16 GEMM: equal
 * times mean equal sync costs. The sync must cost something measurable for
 * this to mean anything. fp32 is left out: on the H100 the document's own
 * measure (sync each minus async, 512^2) gives 7.9 us for fp16, 8.0 us for
 * bf16 but 12.5 us for fp32, so that part of the claim does not hold there. */
PERF_TEST(sync_points, sync_overhead_is_the_same_for_fp16_and_bf16)
{
  three_gemms t;
  cudaDataType types[3] = {CUDA_R_16F, CUDA_R_16BF, CUDA_R_32F};
  for (int k = 0; k < 3; k++) {
    gemm_init_typed(&t.g[k], 512, types[k]);
    gemm_wrote_c(&t.g[k]);
  }
  t.s = t.g[0].stream; /* all three on one stream */
  for (int k = 1; k < 3; k++) PERF_CUBLAS(cublasSetStream(t.g[k].blas, t.s));
  perf_workload fp16 = PERF_WORKLOAD(f16_last, &t, .stream = t.s);
  perf_workload bf16 = PERF_WORKLOAD(bf16_last, &t, .stream = t.s);
  perf_workload none = PERF_WORKLOAD(no_sync, &t, .stream = t.s);
  /* the sync is a visible cost: at least 2 % (1.1 kept under 1 % of headroom
   * in 10 runs on the H100, 2026-11-22, 1.05 under 5 % on the H100 and an
   * H200 in the next runs: intervals down to 1.07 in a disturbed run) */
  PERF_EXPECT_FASTER(none, fp16, 1.02);
  /* "the same" within 20 %: the document calls "~10-15 us" one cost, 12.5
   * us +-20 %. Tighter bands were fitted to runs (15 %: the worst edge
   * 1.093 over 10 H100 runs; on an H200 one run of 20 gave [0.933, 1.095],
   * headroom 1.036, 2026-11-29) */
  PERF_EXPECT_SIMILAR(fp16, bf16, 0.2);
}
