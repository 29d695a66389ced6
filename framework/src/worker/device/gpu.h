/* gpu.h — the worker's door to CUDA: device probe, event-timer floor, error classification. */
#ifndef PERF_GPU_H
#define PERF_GPU_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "host/clock.h"

typedef struct perf__gpu_info {
  int probed;
  int count;          /* usable devices; 0 when err != 0 */
  int err;            /* 0, PERF__ENODEV or PERF__ECUDA */
  char reason[300];   /* why no device, when err != 0 */
  char name[256];     /* device 0 */
  perf__clock_floor events; /* event-timer floor on device 0 */
  int watch;          /* NVML reads SM clock and throttle reasons */
  char watch_off[200];/* why not, when watch == 0 */
} perf__gpu_info;

/* Probes the devices on first call (creating device 0's context), measures
 * the event-timer floor, opens the GPU watch (NVML) and reports them as
 * INFO lines. Never fails:
 * problems land in the result's err/reason. Host-only tests never call it;
 * the supervisor must never call it. */
const perf__gpu_info *perf__gpu(void);

/* 1 when this process holds a CUDA context (one current on this thread, or
 * a device's primary context active): only then can code have queued GPU
 * work. Asks the driver library only if something already loaded it, and
 * never initialises CUDA. 1 when the answer is unclear (a symbol missing).
 * Never fails. */
int perf__gpu_in_use(void);

/* Waits for all work on each of devs[0..n) (n == 0: the current device;
 * n < 0: every device with an active context), leaving the current device
 * as it was. The runtime's last error is left for perf__gpu_take_error.
 * Returns 0, or the error code from perf__gpu_explain with a description
 * in why (an error a kernel raised while running). */
int perf__gpu_wait_devices(const int *devs, int n, char *why, size_t len);

/* When this worker has a CUDA context: synchronises the device and takes
 * the last error. Returns 0 when clean (or no context), else the error code
 * from perf__gpu_explain with a description in why. */
int perf__gpu_settle(char *why, size_t len);

/* At the start of every test: installs the watch on the runtime's start
 * (rtstart.h) and takes the last error an earlier test left. When the
 * runtime had already failed to start (no driver), this test's calls
 * cannot be told apart: perf__gpu_take_error then says nothing (a worker
 * is retired after such a test: perf__gpu_broken). Never fails. */
void perf__gpu_test_begin(void);

/* The calling thread's last CUDA runtime error, taken (cleared): the error
 * of a call that failed since it was last taken, whoever made it. Asks the
 * runtime only once it has started (rtstart.h), so it never starts CUDA
 * in a process that has not. Returns 0 (none, or not started), PERF__ENODEV
 * (no usable driver or device: the runtime could not start) or PERF__ECALL,
 * with "api: message (cudaErrorName)" in why[len]. Calls made on other
 * threads, and driver API calls, leave no error here. */
int perf__gpu_take_error(const char *api, char *why, size_t len);

/* 1 when the runtime has started in this process and cannot be used (no
 * usable driver or device): every later call, on every thread, returns
 * that error, so what a later test calls cannot be seen. Never fails. */
int perf__gpu_broken(void);

/* After a runtime call of the framework's own whose failure it handles
 * (e): takes the last error, which would otherwise be blamed on the test.
 * Never fails. */
void perf__gpu_tolerate(cudaError_t e);

/* 1 when e means "no usable CUDA device or driver" (the test is skipped),
 * 0 for any other error. */
int perf__gpu_nodevice(cudaError_t e);

/* Describes a failed CUDA call into buf as "api: message (cudaErrorName)";
 * a "no device" error is preceded by what the driver is, where CUDA's text
 * does not say it: "no NVIDIA driver found: libcuda.so.1 cannot be loaded; "
 * (or: its kernel module is not loaded), or the CUDA version a driver that
 * is too old supports. Returns PERF__ENODEV or PERF__ECUDA; 0 for
 * cudaSuccess (buf untouched). */
int perf__gpu_explain(cudaError_t e, const char *api, char *buf, size_t len);

/* Ends the running test for an error from perf__gpu_explain: SKIP with
 * "no CUDA device (msg)" for PERF__ENODEV, ERROR with msg for PERF__ECALL
 * (a workload's CUDA call failed: it is not timed), FAIL with "CUDA error:
 * msg" otherwise. */
void perf__gpu_end(int err, const char *msg) __attribute__((noreturn));

/* Ends the running test because of e: SKIP with "no CUDA device (...)" for
 * no-device errors, FAIL naming api and the error otherwise. */
void perf__gpu_fail(cudaError_t e, const char *api, const char *file, int line)
    __attribute__((noreturn));

#endif
