/* peaks.c — bench-peaks: this GPU's spec peaks beside the rates perfgate's calibration reaches. */
/* Those rates are the figures speed-of-light claims decide against. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "baseline/peaks.h"
#include "perfgate.h"
#include "worker/context.h"
#include "worker/device/fingerprint.h"
#include "worker/sample/calibrate.h"

enum { WARM = 3, CALLS = 20 };

/* Times CALLS calls of w with events on its stream after WARM; seconds a
 * call. A CUDA error ends the run. */
static double per_call(perf_workload *w)
{
  cudaEvent_t a, b;
  float ms = 0;
  PERF_CUDA(cudaEventCreate(&a));
  PERF_CUDA(cudaEventCreate(&b));
  for (int i = 0; i < WARM; i++) w->fn(w->arg);
  PERF_CUDA(cudaEventRecord(a, w->stream));
  for (int i = 0; i < CALLS; i++) w->fn(w->arg);
  PERF_CUDA(cudaEventRecord(b, w->stream));
  PERF_CUDA(cudaEventSynchronize(b));
  PERF_CUDA(cudaEventElapsedTime(&ms, a, b));
  PERF_CUDA(cudaEventDestroy(a));
  PERF_CUDA(cudaEventDestroy(b));
  return ms * 1e-3 / CALLS;
}

static int only_copy;

/* One row per calibration: its achieved rate (events clock), the spec
 * peak and the share. */
static void body(void)
{
  const perf__peaks_device *d = perf__fingerprint_peaks();
  perf_workload like = {.clock = PERF_CLOCK_EVENTS};
  printf("achieved: CUDA events around %d calls after %d warm ones, on the legacy stream\n", CALLS,
         WARM);
  printf("%-22s %16s %16s %8s  %s\n", "calibration", "achieved", "spec peak", "share", "spec basis");
  /* row 0: DRAM, 1: the host link, then each flop type's GEMM */
  for (int k = 0; k < PERF_FLOP_TYPE_COUNT + 1; k++) {
    perf_workload w;
    char why[300], rate[48], spec[48], basis[300] = "";
    perf_flop_type t = k < 2 ? PERF_FLOP_NONE : (perf_flop_type)(k - 1);
    perf__calibrate_peak peak = k == 0 ? PERF__CAL_DRAM : k == 1 ? PERF__CAL_LINK : PERF__CAL_MATH;
    if (only_copy && k) break;
    if (perf__calibrate_make(peak, t, &like, &w, why, sizeof why)) {
      printf("%-22s %s\n", perf__peaks_type_word(t), why);
      continue;
    }
    int bytes = peak != PERF__CAL_MATH;
    double s = per_call(&w), work = bytes ? w.bytes_read + w.bytes_written : w.flops;
    double top = peak == PERF__CAL_MATH ? perf__peaks_math(d, t, basis, sizeof basis)
                 : peak == PERF__CAL_LINK ? perf__peaks_link(d, basis, sizeof basis)
                                          : perf__peaks_dram(d);
    if (peak == PERF__CAL_DRAM)
      snprintf(basis, sizeof basis, "%.0f MHz x 2 x %d bits", d->mem_clock_mhz, d->bus_bits);
    printf("%-22s %16s %16s %7.1f%%  %s\n", w.name, perf__peaks_rate_text(rate, sizeof rate, work / s, bytes, t),
           perf__peaks_rate_text(spec, sizeof spec, top, bytes, t), top > 0 ? 100 * work / s / top : 0,
           basis);
  }
}

int main(int argc, char **argv)
{
  perf__context_result res;
  only_copy = argc > 1 && !strcmp(argv[1], "copy");
  jmp_buf *end = perf__context_begin("bench-peaks", &res);
  if (setjmp(*end) == 0) body();
  perf__context_finish_checks();
  perf__context_finish();
  if (res.outcome != PERF_OUTCOME_PASS) {
    fprintf(stderr, "bench-peaks: %s: %s\n", perf__status_word(res.outcome), res.reason);
    return 2;
  }
  return 0;
}
