/* reference.h — perfgate's reference work: a fixed host loop and a fixed GPU copy, timed in a worker so that a baseline check can tell a slower machine from a slower workload. */
#ifndef PERF_REFERENCE_H
#define PERF_REFERENCE_H

#include <cuda_runtime_api.h>

/* A baseline entry compares a workload with itself in another process,
 * often days apart. When the machine itself is slower now — its CPUs
 * clocked down or shared with a neighbour the host counters do not show
 * (issue 32: every host-timed workload of a suite 8-37 % slow for tens
 * of seconds on the H100 runner, steal 0 %, load normal), or its GPU
 * slowed by something NVML does not list — every workload is slower, and
 * a check that blames the workload is wrong. So the same fixed work is
 * timed at update (recorded beside the entries: base/blrule.h,
 * PERF__BLR_REFERENCE_TEST) and again in a process whose check is about
 * to fail; a reference slower beyond its own tolerance leaves the check
 * undecided, named (worker/claim/baselinecheck.c).
 *
 * host: PERF__REFERENCE_SAMPLES timings (host monotonic clock) of an
 *       integer loop over a 256 KiB buffer (0.53 ms on the H100 runner's
 *       Xeon, 0.44 ms on a 2-core EPYC VM): CPU clock and core sharing, no
 *       system calls, as readings of PERF__REFERENCE_READ timings in a row
 *       (their mean: about as long as a workload's sample, so that a
 *       machine slowed in stalls shorter than a timing, a vCPU time-sliced
 *       on its host, shows in a reading as in a sample; a median of 3
 *       timings passed over stalls of 0.5 ms in every 1 ms); the median of
 *       the readings is the reference. A timing the host preempted is
 *       retaken (up to PERF__REFERENCE_RETAKES times): another process's
 *       load is named by the host cause rule; the reference times the CPU
 *       while it runs. A host-paced check reads it between its sample
 *       batches too (worker/sample/inband.h), reading for reading as an
 *       update records it.
 * gpu:  PERF__REFERENCE_SAMPLES timings (CUDA events, a stream of its
 *       own) of 4 memsets of a 128 MiB buffer, more than any GPU's L2:
 *       the device's memory path; the host queues them far faster than
 *       they run, so the host's pace is not in it. */
enum { PERF__REFERENCE_SAMPLES = 15, PERF__REFERENCE_READ = 3, PERF__REFERENCE_RETAKES = 5 };

typedef struct perf__reference {
  double median, mad; /* seconds per sample (host: per timing, of the readings) */
  long n;             /* samples (host: readings) */
} perf__reference;

/* Times the host reference into r. Never fails. */
void perf__reference_host(perf__reference *r);

/* One reading of the host reference: the mean of PERF__REFERENCE_READ
 * timings in a row, in seconds (host monotonic clock). Never fails. */
double perf__reference_host_reading(void);

/* Times the GPU reference on the current device into r. Returns the first
 * CUDA error (r then zeroed); frees what it allocated either way. */
cudaError_t perf__reference_gpu(perf__reference *r);

#endif
