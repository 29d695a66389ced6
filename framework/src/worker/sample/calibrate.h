/* calibrate.h — the work that measures a GPU's achievable peaks. */
/* A streaming copy for DRAM bandwidth, and a large cuBLASLt GEMM per data
 * type for math. */
#ifndef PERF_CALIBRATE_H
#define PERF_CALIBRATE_H

#include <stddef.h>

#include "baseline/peaks.h"
#include "perfgate.h"

/* A speed-of-light claim (claim/solight.c) decides a workload's share of
 * what this GPU achieves, not of its datasheet: the calibration work is
 * timed in the same ABBA rounds as the workload, on its stream and clock,
 * so that whatever the GPU's clock, power or neighbours do to one does it
 * to the other, and the claim is decided on their ratio (a peak measured
 * in another process brings back the between-process noise that baseline
 * checks fight).
 *
 * dram: perfgate's streaming copy (hand-written PTX, 16 bytes a thread,
 *       as the blocking kernel is: no nvcc in the framework) of a buffer of
 *       PERF__CALIBRATE_COPY_BYTES (an eighth of the GPU's memory when that
 *       is less) into another: 2 x that many bytes a call, 40 x an H100's
 *       50 MiB L2, so that they come from DRAM on any clock.
 * math: one m = n = k = PERF__CALIBRATE_GEMM_N GEMM through cuBLASLt
 *       (loaded with dlopen: only a claim that needs it needs cuBLAS),
 *       A transposed (the layout FP8 and INT8 need), of inputs filled with
 *       bounded random values (a kernel of hashed bits: constant inputs
 *       flatter the tensor cores' power), 2 x n^3 operations a call. Per
 *       type: fp64 (compute 64F), fp32 (32F), tf32 (32F_FAST_TF32, fp32
 *       data), fp16 and bf16 (32F accumulate), fp8 (E4M3 in, BF16 out),
 *       int8 (32I).
 * link: PERF__CALIBRATE_LINK_BYTES from pinned host memory to the device on
 *       the workload's stream and as many back on a second stream at once
 *       (forked from and joined to it): the host link's rate both ways
 *       (PCIe is full duplex), what copies from and to pinned memory can
 *       reach; or one way alone, the way the workload's bytes go
 *       (perf__calibrate_link_ways): a one-way copy is held to a one-way
 *       peak. */
#define PERF__CALIBRATE_COPY_BYTES ((size_t)1 << 30)
#define PERF__CALIBRATE_LINK_BYTES ((size_t)256 << 20)
#define PERF__CALIBRATE_GEMM_N 8192

/* The peaks a calibration measures. */
typedef enum perf__calibrate_peak {
  PERF__CAL_DRAM, /* the streaming copy */
  PERF__CAL_LINK, /* pinned copies the ways the workload's bytes go */
  PERF__CAL_MATH  /* a GEMM of a flop type */
} perf__calibrate_peak;

/* The ways of the host link a workload's declared bytes take, as a mask
 * (baseline/peaks.h): PERF__LINK_TO_DEVICE (.bytes_written),
 * PERF__LINK_TO_HOST (.bytes_read), both; both when it declares neither.
 * Their word is perf__peaks_link_word's. Never fails. */
int perf__calibrate_link_ways(const perf_workload *w);

/* Makes *out a workload of the calibration of peak (PERF__CAL_MATH: for
 * type t) that runs on like's stream with like's clock, its work declared
 * (the link's: the bytes of each way it copies: like's ways,
 * perf__calibrate_link_ways), named "perfgate_copy", "perfgate_link",
 * "perfgate_link_h2d", "perfgate_link_d2h" or "cublasLt_<type>_gemm". Its buffers
 * live until the test ends (made once per test and peak). Returns 0; or 1
 * with why[len] when this machine cannot run it (cuBLASLt not found, no
 * algorithm for the type on this GPU): the claim cannot be decided here.
 * Ends the test on a CUDA error (FAIL, or SKIP without a device). */
int perf__calibrate_make(perf__calibrate_peak peak, perf_flop_type t, const perf_workload *like,
                         perf_workload *out, char *why, size_t len);

/* What the calibration is, for a verdict line: "perfgate's streaming copy
 * of 1.00 GiB into another", "perfgate's pinned copies of 256 MiB to the
 * device and back at once" (ways: the link's, PERF__LINK_BOTH; "perfgate's
 * pinned copy of 256 MiB to the device", "... from the device") or "a
 * cuBLASLt fp16 GEMM, 8192^3, ...". Returns buf. Never fails. */
char *perf__calibrate_describe(perf__calibrate_peak peak, perf_flop_type t, int ways, char *buf,
                               size_t len);

#endif
