/* probe.h — what the supervisor asks of CUDA, answered in a forked child. */
/* The device count, the GPU's fingerprint, and this machine's baseline file. */
#ifndef PERF_PROBE_H
#define PERF_PROBE_H

/* The supervisor never initialises CUDA in its own process (a worker that
 * crashes the driver must not take it down, and a CUDA context would be
 * inherited by every worker it forks). When it needs an answer only CUDA
 * can give, it asks here: each function forks, the child asks CUDA and
 * writes the answer to a pipe, the parent reads it and waits for the
 * child. This header is the one worker-side header the supervisor's side
 * includes, and it brings no CUDA header with it. */

#include <stddef.h>
#include <sys/types.h>

#include "baseline/baseline.h"
#include "host/preflight.h"

/* The number of usable CUDA devices; 0 without a device or a driver, or
 * when no child could be started, with why into why[len] (why may be
 * NULL): the driver's state and CUDA's error, as a skipped test words it
 * ("no NVIDIA driver found: ...; cudaGetDeviceCount: ..."), and
 * CUDA_VISIBLE_DEVICES when it is set. Never fails otherwise. */
int perf__probe_device_count(char *why, size_t len);

/* Device 0's fingerprint into b (b->nfp == 0 without a GPU or a child).
 * Never fails otherwise. */
void perf__probe_gpu_fingerprint(perf__baseline *b);

/* This machine's baseline file under dir (the GPU's when one works, the
 * CPU's otherwise: the one a run reads, baseline/machine.h) into path[len]. Returns 0, or -1 when no child could be
 * started (errno set). */
int perf__probe_baseline_file(const char *dir, char *path, size_t len);

/* A preflight question asked of a child, not yet answered. */
typedef struct perf__probe_pending {
  int device;
  pid_t pid;
  int fd, err; /* the answer's read end; errno when no child started */
} perf__probe_pending;

/* Asks a child for the preflight's readings of one GPU: device 0 as the
 * run sees it (device < 0), or with CUDA_VISIBLE_DEVICES=device (a
 * --devices run's GPU); its name and bus id from CUDA, its clocks,
 * settings and the other processes on it from NVML. The child creates no
 * context (no process of this run is on the GPU yet). Returns at once;
 * perf__probe_preflight_finish reads the answer (several may be asked at
 * once). Never fails (a child that cannot start: finish says so). */
void perf__probe_preflight_start(int device, perf__probe_pending *p);

/* The answer into g, waiting for the child. No device: g->none says why,
 * as a skipped test does; no NVML: g->nvml_off says why. Never fails:
 * without a child or an answer, g->none says so. */
void perf__probe_preflight_finish(perf__probe_pending *p, perf__preflight_gpu *g);

/* The NVML part of that, in this process, for the GPU at bus (the
 * self-tests call it with the stand-in NVML). Never fails: g->nvml_off
 * says why NVML gave nothing. */
void perf__probe_preflight_nvml(const char *bus, perf__preflight_gpu *g);

#endif
