/* gpu.c — the worker's door to CUDA: device probe, event-timer floor, error classification. */
#include "worker/device/gpu.h"

#include <cublas_api.h>
#include <cuda.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/units.h"
#include "worker/device/gpuwatch.h"
#include "perfgate.h"
#include "stats/stats.h"
#include "util/status.h"
#include "worker/context.h"
#include "worker/device/rtstart.h"

/* Returns 1 for the errors that say there is no usable device or driver. */
int perf__gpu_nodevice(cudaError_t e)
{
  switch (e) {
  case cudaErrorInsufficientDriver:
  case cudaErrorNoDevice:
  case cudaErrorStubLibrary:
  case cudaErrorSystemDriverMismatch:
  case cudaErrorCompatNotSupportedOnDevice:
  case cudaErrorDevicesUnavailable:
    return 1;
  default:
    return 0;
  }
}

/* The NVIDIA driver as this process finds it, for a "no device" error,
 * into out[len]: "no NVIDIA driver found: ..." when there is none
 * (libcuda.so.1 cannot be loaded, or the kernel module is absent), the
 * CUDA version a driver that is too old supports, or "" where CUDA's own
 * text says it (a driver and library that do not match, no device).
 * Loads libcuda.so.1 to look (not initialising it). Never fails. */
static void driver_state(cudaError_t e, char *out, size_t len)
{
  void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  CUresult (*version)(int *) = NULL;
  int v = 0, rt = 0;
  out[0] = '\0';
  if (!lib) {
    snprintf(out, len, "no NVIDIA driver found: libcuda.so.1 cannot be loaded");
    return;
  }
  /* /dev/dxg: WSL's GPU, which has no /proc/driver/nvidia */
  if (access("/proc/driver/nvidia/version", F_OK) && access("/dev/dxg", F_OK))
    snprintf(out, len, "no NVIDIA driver found: libcuda.so.1 is installed, but the NVIDIA "
             "kernel module is not loaded (no /proc/driver/nvidia/version)");
  else if (e == cudaErrorInsufficientDriver &&
           (*(void **)&version = dlsym(lib, "cuDriverGetVersion")) && version(&v) == CUDA_SUCCESS &&
           cudaRuntimeGetVersion(&rt) == cudaSuccess && v < rt)
    snprintf(out, len, "the NVIDIA driver supports CUDA %d.%d, older than this runtime "
             "(CUDA %d.%d)", v / 1000, v % 1000 / 10, rt / 1000, rt % 1000 / 10);
  dlclose(lib);
}

/* Returns 0, PERF__ENODEV or PERF__ECUDA; never fails otherwise. */
int perf__gpu_explain(cudaError_t e, const char *api, char *buf, size_t len)
{
  char driver[200] = "";
  if (e == cudaSuccess) return 0;
  if (perf__gpu_nodevice(e)) driver_state(e, driver, sizeof driver);
  snprintf(buf, len, "%s%s%s: %s (%s)", driver, driver[0] ? "; " : "", api,
           cudaGetErrorString(e), cudaGetErrorName(e));
  return perf__gpu_nodevice(e) ? PERF__ENODEV : PERF__ECUDA;
}

static int blind; /* the runtime could not start before this test began:
                     what the test calls cannot be told apart */

/* 1 when the CUDA runtime has started in this process (or tried to), as
 * the watch saw it (without the watch: a CUDA context shows it): only then
 * may it be asked anything, as asking starts it. Never fails; with the
 * watch, an atomic load. */
static int runtime_started(void)
{
  int seen = perf__rtstart_seen();
  return seen >= 0 ? seen : perf__gpu_in_use();
}

/* See perfgate.h. */
size_t perf_bytes_beyond_l2(size_t at_least)
{
  enum { FACTOR = 4 };
  const size_t mib = (size_t)1 << 20;
  int dev = 0, l2 = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) != cudaSuccess || l2 <= 0) {
    cudaGetLastError(); /* not this caller's error */
    return at_least;
  }
  size_t want = ((size_t)FACTOR * (size_t)l2 + mib - 1) / mib * mib;
  return want > at_least ? want : at_least;
}

/* See gpu.h. */
void perf__gpu_test_begin(void)
{
  perf__rtstart_watch();
  blind = runtime_started() && perf__gpu_nodevice(cudaGetLastError());
}

/* See gpu.h. */
int perf__gpu_take_error(const char *api, char *why, size_t len)
{
  if (blind || !runtime_started()) return 0;
  int err = perf__gpu_explain(cudaGetLastError(), api, why, len);
  return err == PERF__ECUDA ? PERF__ECALL : err;
}

/* See gpu.h. */
int perf__gpu_broken(void)
{
  return runtime_started() && perf__gpu_nodevice(cudaPeekAtLastError());
}

/* See gpu.h. */
void perf__gpu_tolerate(cudaError_t e)
{
  if (e != cudaSuccess) cudaGetLastError();
}

/* Does not return: ends the running test (see gpu.h). */
void perf__gpu_end(int err, const char *msg)
{
  if (err == PERF__ENODEV)
    perf__context_end(PERF_OUTCOME_SKIP, 1, "no CUDA device (%s)", msg);
  if (err == PERF__ECALL) perf__context_end(PERF_OUTCOME_ERROR, 0, "%s", msg);
  perf__context_end(PERF_OUTCOME_FAIL, 0, "CUDA error: %s", msg);
}

/* Does not return: ends the running test (see gpu.h). */
void perf__gpu_fail(cudaError_t e, const char *api, const char *file, int line)
{
  char msg[400];
  int err = perf__gpu_explain(e, api, msg, sizeof msg);
  if (err == PERF__ECUDA && file)
    perf__context_end(PERF_OUTCOME_FAIL, 0, "CUDA error at %s:%d: %s", file, line, msg);
  perf__gpu_end(err, msg);
}

enum { FLOOR_PAIRS = 301 };

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median elapsed time of an empty event pair, and the smallest non-zero step
 * between distinct readings. Returns a cudaError_t. */
static cudaError_t event_floor(perf__clock_floor *f)
{
  static double d[FLOOR_PAIRS];
  cudaStream_t s;
  cudaEvent_t e0, e1;
  cudaError_t err = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  if (err) return err;
  if ((err = cudaEventCreate(&e0)) == cudaSuccess) {
    if ((err = cudaEventCreate(&e1)) == cudaSuccess) {
      for (int i = 0; i < FLOOR_PAIRS && !err; i++) {
        float ms = 0;
        err = cudaEventRecord(e0, s);
        if (!err) err = cudaEventRecord(e1, s);
        if (!err) err = cudaEventSynchronize(e1);
        if (!err) err = cudaEventElapsedTime(&ms, e0, e1);
        d[i] = (double)ms * 1e-3;
      }
      cudaEventDestroy(e1);
    }
    cudaEventDestroy(e0);
  }
  cudaStreamDestroy(s);
  if (err) return err;
  qsort(d, FLOOR_PAIRS, sizeof d[0], cmp_double);
  double step = INFINITY;
  for (int i = 1; i < FLOOR_PAIRS; i++)
    if (d[i] > d[i - 1] && d[i] - d[i - 1] < step) step = d[i] - d[i - 1];
  f->floor_s = perf__stats_quantile_sorted(d, FLOOR_PAIRS, 0.5);
  f->step_s = isfinite(step) ? step : 0.5e-6;
  /* An empty pair can read 0: the floor is then the documented ~0.5 us
   * resolution of cudaEventElapsedTime or the observed step, whichever is
   * larger. */
  if (f->floor_s < f->step_s) f->floor_s = f->step_s;
  f->measured = 1;
  return cudaSuccess;
}

/* The driver calls the worker makes without initialising CUDA, resolved
 * from libcuda only once something else loaded it. Never fails: NULL
 * until then; members may be NULL (a symbol missing). */
static const struct cu_calls {
  CUresult (*current)(CUcontext *);
  CUresult (*count)(int *);
  CUresult (*device)(CUdevice *, int);
  CUresult (*state)(CUdevice, unsigned *, int *);
} *driver(void)
{
  static struct cu_calls cu;
  static int loaded;
  if (!loaded) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) return NULL; /* nothing loaded the driver: no context can exist */
    loaded = 1;
    *(void **)&cu.current = dlsym(lib, "cuCtxGetCurrent");
    *(void **)&cu.count = dlsym(lib, "cuDeviceGetCount");
    *(void **)&cu.device = dlsym(lib, "cuDeviceGet");
    *(void **)&cu.state = dlsym(lib, "cuDevicePrimaryCtxGetState");
  }
  return &cu;
}

/* Device i's primary context is active. Never fails (0 when unknown). */
static int active(const struct cu_calls *cu, int i)
{
  CUdevice d;
  unsigned flags = 0;
  int on = 0;
  return cu->device(&d, i) == CUDA_SUCCESS && cu->state(d, &flags, &on) == CUDA_SUCCESS &&
         on;
}

/* Never fails; see gpu.h. */
int perf__gpu_in_use(void)
{
  const struct cu_calls *cu = driver();
  if (!cu) return 0;
  if (!cu->current || !cu->count || !cu->device || !cu->state) return 1;
  CUcontext ctx = NULL;
  if (cu->current(&ctx) == CUDA_SUCCESS && ctx) return 1;
  int n = 0;
  if (cu->count(&n) != CUDA_SUCCESS) return 0; /* not initialised */
  for (int i = 0; i < n; i++)
    if (active(cu, i)) return 1;
  return 0;
}

/* The devices whose primary context is active, into devs[cap]; the count
 * (0 when the driver cannot say: then only the current device is known). */
static int active_devices(int *devs, int cap)
{
  const struct cu_calls *cu = driver();
  int n = 0, k = 0;
  if (!cu || !cu->count || !cu->device || !cu->state || cu->count(&n) != CUDA_SUCCESS)
    return 0;
  for (int i = 0; i < n && k < cap; i++)
    if (active(cu, i)) devs[k++] = i;
  return k;
}

/* Probes device 0 (leaving the current device as the test set it). */
static void probe(perf__gpu_info *g)
{
  int prev = -1;
  if (perf__gpu_in_use() && cudaGetDevice(&prev) != cudaSuccess) prev = -1;
  cudaError_t e = cudaGetDeviceCount(&g->count);
  const char *api = "cudaGetDeviceCount";
  struct cudaDeviceProp p;
  if (!e && g->count == 0) e = cudaErrorNoDevice;
  if (!e) e = cudaSetDevice(0), api = "cudaSetDevice";
  if (!e) e = cudaFree(0), api = "cudaFree(0) (context creation)";
  if (!e) e = cudaGetDeviceProperties(&p, 0), api = "cudaGetDeviceProperties";
  if (!e) snprintf(g->name, sizeof g->name, "%s", p.name);
  if (!e) e = event_floor(&g->events), api = "event timer floor";
  if (prev > 0 && !e) e = cudaSetDevice(prev), api = "cudaSetDevice (back to the test's device)";
  if (e) {
    g->err = perf__gpu_explain(e, api, g->reason, sizeof g->reason);
    g->count = 0;
    return;
  }
  char bus[32];
  e = cudaDeviceGetPCIBusId(bus, sizeof bus, 0);
  perf__gpu_tolerate(e);
  if (e)
    snprintf(g->watch_off, sizeof g->watch_off, "cudaDeviceGetPCIBusId: %s",
             cudaGetErrorString(e));
  else
    g->watch = perf__gpuwatch_open(bus, g->watch_off, sizeof g->watch_off) == 0;
}

/* The GPU watch's INFO line: the SM clock now, or why there is no watch. */
static void announce_watch(const perf__gpu_info *g)
{
  unsigned cur = 0, max = 0;
  if (!g->watch) {
    perf__context_line(PERF_LINE_INFO, "GPU watch: off (%s): throttled samples cannot be "
               "detected", g->watch_off);
    return;
  }
  perf__gpuwatch_sm_clock(&cur, &max);
  perf__context_line(PERF_LINE_INFO, "GPU watch: NVML reads the SM clock and throttle reasons "
             "after every sample (SM clock now %u MHz, max %u MHz)", cur, max);
}

static perf__gpu_info gpu;

static void announce(const perf__gpu_info *g)
{
  char f[32], s[32];
  if (g->err) {
    perf__context_line(PERF_LINE_INFO, "event timer (events): not available: %s", g->reason);
    return;
  }
  perf__context_line(PERF_LINE_INFO, "event timer (events): floor %s, step %s on device 0 (%s)",
             perf__units_time(f, sizeof f, g->events.floor_s),
             perf__units_time(s, sizeof s, g->events.step_s), g->name);
  announce_watch(g);
}

/* Never fails; see gpu.h. */
const perf__gpu_info *perf__gpu(void)
{
  if (!gpu.probed) {
    gpu.probed = 1;
    probe(&gpu);
    announce(&gpu);
  }
  return &gpu;
}

/* See gpu.h. */
int perf__gpu_settle(char *why, size_t len)
{
  if (!gpu.probed || gpu.err) return 0;
  cudaError_t e = cudaDeviceSynchronize();
  const char *api = "cudaDeviceSynchronize";
  if (!e) e = cudaGetLastError(), api = "cudaGetLastError";
  return perf__gpu_explain(e, api, why, len);
}

/* See gpu.h. */
int perf__gpu_wait_devices(const int *devs, int n, char *why, size_t len)
{
  int all[64], cur = -1;
  if (n < 0) {
    n = active_devices(all, 64);
    devs = all;
  }
  cudaError_t e = cudaSuccess;
  const char *api = "cudaDeviceSynchronize";
  if (n > 1 || (n == 1 && (cudaGetDevice(&cur) != cudaSuccess || devs[0] != cur))) {
    if ((e = cudaGetDevice(&cur)) != cudaSuccess) return perf__gpu_explain(e, "cudaGetDevice", why, len);
    for (int i = 0; i < n && !e; i++) {
      e = cudaSetDevice(devs[i]), api = "cudaSetDevice";
      if (!e) e = cudaDeviceSynchronize(), api = "cudaDeviceSynchronize";
    }
    cudaError_t back = cudaSetDevice(cur);
    if (!e && back) e = back, api = "cudaSetDevice (back to the test's device)";
  } else
    e = cudaDeviceSynchronize();
  return perf__gpu_explain(e, api, why, len);
}

/* Public: PERF_REQUIRE_GPUS. Skips the test when fewer than n devices work:
 * as "no CUDA device" (which --require-gpu fails) when none does, and as a
 * machine too small for the test (which it does not: a one-GPU runner
 * has its GPU) when some do. */
void perf__require_gpus(int n, const char *file, int line)
{
  const perf__gpu_info *g = perf__gpu();
  if (g->err) perf__gpu_end(g->err, g->reason);
  if (g->count < n)
    perf__context_end(PERF_OUTCOME_SKIP, g->count == 0, "needs %d CUDA devices, found %d (at %s:%d)",
                   n, g->count, file, line);
}

/* Public: PERF_CUDA. Returns on cudaSuccess, otherwise ends the test. */
void perf__cuda_check(cudaError_t err, const char *expr, const char *file,
                      int line)
{
  if (err != cudaSuccess) perf__gpu_fail(err, expr, file, line);
}

/* The status's enum name, from the header (the framework does not link
 * cuBLAS: only tests that use it do). Never fails. */
static const char *cublas_status_name(int status)
{
  switch (status) {
  case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
  case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
  case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
  case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
  default: return "unknown cuBLAS status";
  }
}

/* Public: PERF_CUBLAS. Returns on CUBLAS_STATUS_SUCCESS, else fails the test. */
void perf__cublas_check(int status, const char *expr, const char *file,
                        int line)
{
  if (status == CUBLAS_STATUS_SUCCESS) return;
  if (status == CUBLAS_STATUS_NOT_INITIALIZED) {
    /* cublasCreate reports a missing driver this way; ask the runtime. */
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (perf__gpu_nodevice(e)) perf__gpu_fail(e, expr, file, line);
  }
  perf__context_end(PERF_OUTCOME_FAIL, 0, "cuBLAS error at %s:%d: %s: %s (%d)", file,
                 line, expr, cublas_status_name(status),
                 status);
}
