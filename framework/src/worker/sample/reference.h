/* reference.h — perfgate's reference work, timed so that a check can tell a slower machine. */
/* A host loop, GPU memsets and kernel launches. */
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
 * timed at update (recorded beside the entries: baseline/blrule.h,
 * PERF__BLR_REFERENCE_TEST) and again in a process whose check is about
 * to fail; a reference slower beyond its own tolerance leaves the check
 * undecided, named (worker/claim/bldoor.c).
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
 *       they run, so the host's pace is not in it.
 * launch: readings of PERF__REFERENCE_LAUNCHES launches of an empty kernel
 *       (loaded from PTX text: perfgate's library holds no device code) on
 *       a stream of its own, host-timed from the first launch's call to the
 *       last one's return, then waited for, untimed: the driver's launch
 *       path, per launch. A launch-bound workload's time is that path's
 *       pace, which moves between processes on one machine (an H200 host,
 *       2026-11-29, 66 processes: an eager 20-launch pipeline 65-94 us, CV
 *       11 %) while a CPU loop hardly does (CV 6.8 % of the pipeline over
 *       the loop): over this reading in the same process the pipeline's
 *       spread was CV 3.3 % (baseline/blrule.h: launch-normalized entries). */
enum {
  PERF__REFERENCE_SAMPLES = 15,
  PERF__REFERENCE_READ = 3,
  PERF__REFERENCE_RETAKES = 5,
  PERF__REFERENCE_LAUNCHES = 16
};

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

/* A launch reference ready to read on the current device: its stream. */
typedef struct perf__reference_launcher {
  cudaStream_t st;
} perf__reference_launcher;

/* Loads the empty kernel (once per process) and creates l's stream on the
 * current device. Returns the first CUDA error (l then holds nothing). */
cudaError_t perf__reference_launch_open(perf__reference_launcher *l);

/* One reading of the launch reference: seconds per launch (host monotonic
 * clock) into *s. Returns the first CUDA error (*s then 0). */
cudaError_t perf__reference_launch_reading(perf__reference_launcher *l, double *s);

/* The empty kernel's turnaround on l's stream: host time from its launch
 * call to the return of the wait for it (host monotonic clock), into *s.
 * Another context holding the GPU delays it by the rest of that context's
 * time slice (worker/claim/canary.h). Returns the first CUDA error (*s
 * then 0). */
cudaError_t perf__reference_turnaround(perf__reference_launcher *l, double *s);

/* Destroys l's stream. Never fails (an error is tolerated: the next
 * workload's is its own). */
void perf__reference_launch_close(perf__reference_launcher *l);

/* The link probe (worker/claim/canary.h): one pinned copy of this many
 * bytes between the host and the device, host-timed. On an H200
 * (2026-11-29) 28 us alone, 417 us beside a process streaming pinned
 * 256 MiB copies to the device (docs/fidelity-canary.md). */
#define PERF__REFERENCE_LINK_BYTES (1u << 20)

/* The link probe's buffers: pinned host memory and device memory of
 * PERF__REFERENCE_LINK_BYTES each (NULL: not open). */
typedef struct perf__reference_link {
  void *host, *dev;
} perf__reference_link;

/* Allocates k's buffers on the current device. Returns the first CUDA
 * error (k then holds nothing). */
cudaError_t perf__reference_link_open(perf__reference_link *k);

/* One copy of k's PERF__REFERENCE_LINK_BYTES on l's stream, to the device
 * (to_host 0) or to the host: host time from the call to the return of
 * the wait for it (host monotonic clock), into *s. Another process's
 * traffic on the host link the same way delays it. Returns the first
 * CUDA error (*s then 0). */
cudaError_t perf__reference_link_turnaround(perf__reference_launcher *l, perf__reference_link *k,
                                            int to_host, double *s);

/* Frees k's buffers. Never fails (an error is tolerated). */
void perf__reference_link_close(perf__reference_link *k);

/* Times PERF__REFERENCE_SAMPLES readings of the launch reference into r.
 * Returns the first CUDA error (r then zeroed). */
cudaError_t perf__reference_launch(perf__reference *r);

#endif
