/* workcount.h — what one call of a workload runs on the GPU, counted by CUPTI's range profiler. */
#ifndef PERF_WORKCOUNT_H
#define PERF_WORKCOUNT_H

#include <stddef.h>

/* A claim that a change kept a workload's work (PERF_EXPECT_SAME_WORK)
 * compares counts, not times: the warp instructions and DRAM bytes of one
 * call, read from the GPU's hardware counters by CUPTI's range profiler in
 * an untimed pass (one user range around the call, replayed here once per
 * pass the metrics need). Counts do not follow clocks or neighbours: on an
 * H200 the instructions of one kernel were equal in 120 counts in 6
 * processes, beside noisy neighbours too, and its DRAM bytes read within
 * 0.064 %. The profiler is set up for one count and torn down before the
 * count returns, so no timing ever runs with it; it needs no privileges
 * unless the driver keeps the counters to admin users. */
typedef struct perf__workcount {
  double insts;     /* sm__inst_executed.sum: warp instructions one call executed */
  double dram_read; /* dram__bytes_read.sum: bytes one call read from DRAM */
  int passes;       /* replay passes the metrics needed (calls made while counting) */
  double setup_s;   /* host clock: profiler setup and teardown */
  double count_s;   /* host clock: the counted passes */
} perf__workcount;

/* One call of the work being counted; it must leave its GPU work queued or done
 * (the module synchronizes the context after it). */
typedef void perf__workcount_call(void *arg);

/* Counts one call of fn(arg) on the current CUDA context (the caller has made one and
 * run fn at least once: warm state is the caller's business). fn is called once per pass.
 * Returns 0 with *out filled; PERF__ENODEV when the device does not support range profiling
 * (why says which part: architecture, vGPU, confidential compute, WSL...); PERF__EIO with the
 * CUPTI call and its message in why (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES gets a sentence
 * naming NVreg_RestrictProfilingToAdminUsers); PERF__ECUDA for a CUDA error in a sync.
 * Whatever happens, the profiler is torn down before it returns (Disable, host deinit,
 * cuptiProfilerDeInitialize) and CUPTI leaves the process (a hold, cupti.h, is taken
 * for the count and ended after it: cuptiFinalize), so no timing ever runs with it. */
int perf__workcount_run(perf__workcount_call *fn, void *arg, perf__workcount *out, char *why, size_t len);

/* Tears down a count that did not return: the counted call ended the test
 * (a failed check, a CUDA error: the test's release hook calls this). The
 * words of why are then lost. Never fails; does nothing without one. */
void perf__workcount_release(void);

#endif
