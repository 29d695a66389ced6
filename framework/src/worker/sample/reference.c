/* reference.c — perfgate's reference work, timed so that a check can tell a slower machine. */
/* A host loop, GPU memsets and kernel launches. */
#include "worker/sample/reference.h"

#include <stdint.h>
#include <string.h>
#include <sys/resource.h>

#include "host/clock.h"
#include "stats/stats.h"
#include "worker/device/gpu.h"

enum { HOST_WORDS = 256 * 1024 / 8, HOST_PASSES = 8, GPU_COPIES = 4 };
static const size_t GPU_BYTES = (size_t)128 << 20;

/* r from n sample times t (n <= PERF__REFERENCE_SAMPLES). Never fails. */
static void summarise(perf__reference *r, double *t, int n)
{
  double scratch[PERF__REFERENCE_SAMPLES];
  r->median = perf__stats_median_of(t, (size_t)n, scratch);
  r->mad = perf__stats_mad_of(t, (size_t)n, scratch);
  r->n = n;
}

/* Where the host loop's result goes, so that the compiler keeps the loop. */
static volatile uint64_t sink;

/* One pass set of the host loop over buf (HOST_WORDS words). Never fails. */
static void host_loop(uint64_t *buf)
{
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int p = 0; p < HOST_PASSES; p++)
    for (int i = 0; i < HOST_WORDS; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      buf[i] += x;
    }
  sink = buf[x % HOST_WORDS];
}

/* Involuntary context switches of this process so far; -1 unknown. */
static long preemptions(void)
{
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_nivcsw;
}

/* One timing of the host loop (host monotonic clock, seconds), retaken up
 * to PERF__REFERENCE_RETAKES times while the host preempted this process
 * during it (other processes' load is the host cause rule's to name:
 * host/hostcause.h; the reference times the CPU while it runs). */
static double host_timing(uint64_t *buf)
{
  double s = 0;
  for (int k = 0; k <= PERF__REFERENCE_RETAKES; k++) {
    long before = preemptions();
    double t0 = perf__clock_now();
    host_loop(buf);
    s = perf__clock_now() - t0;
    if (before < 0 || preemptions() == before) break;
  }
  return s;
}

static uint64_t host_buf[HOST_WORDS];

/* See reference.h. */
double perf__reference_host_reading(void)
{
  double sum = 0;
  for (int i = 0; i < PERF__REFERENCE_READ; i++) sum += host_timing(host_buf);
  return sum / PERF__REFERENCE_READ;
}

/* See reference.h. */
void perf__reference_host(perf__reference *r)
{
  enum { READINGS = PERF__REFERENCE_SAMPLES / PERF__REFERENCE_READ };
  double t[READINGS];
  host_loop(host_buf); /* warm: the buffer in cache, the page faults taken */
  for (int i = 0; i < READINGS; i++) t[i] = perf__reference_host_reading();
  summarise(r, t, READINGS);
}

/* One timed sample of the GPU reference into *s (seconds). Returns the
 * first CUDA error (*s then meaningless). */
static cudaError_t gpu_sample(void *dev, cudaStream_t st, cudaEvent_t a, cudaEvent_t b, double *s)
{
  float ms = 0;
  cudaError_t e = cudaEventRecord(a, st);
  for (int i = 0; i < GPU_COPIES && !e; i++) e = cudaMemsetAsync(dev, i, GPU_BYTES, st);
  if (!e) e = cudaEventRecord(b, st);
  if (!e) e = cudaEventSynchronize(b);
  if (!e) e = cudaEventElapsedTime(&ms, a, b);
  *s = ms * 1e-3;
  return e;
}

/* See reference.h. */
cudaError_t perf__reference_gpu(perf__reference *r)
{
  void *dev = NULL;
  cudaStream_t st = NULL;
  cudaEvent_t a = NULL, b = NULL;
  double t[PERF__REFERENCE_SAMPLES], warm;
  memset(r, 0, sizeof *r);
  cudaError_t e = cudaMalloc(&dev, GPU_BYTES);
  if (!e) e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
  if (!e) e = cudaEventCreate(&a);
  if (!e) e = cudaEventCreate(&b);
  if (!e) e = gpu_sample(dev, st, a, b, &warm); /* first touch of the pages */
  for (int i = 0; i < PERF__REFERENCE_SAMPLES && !e; i++) e = gpu_sample(dev, st, a, b, &t[i]);
  if (!e) summarise(r, t, PERF__REFERENCE_SAMPLES);
  cudaError_t f[4] = {a ? cudaEventDestroy(a) : cudaSuccess, b ? cudaEventDestroy(b) : cudaSuccess,
                      st ? cudaStreamDestroy(st) : cudaSuccess, dev ? cudaFree(dev) : cudaSuccess};
  for (int i = 0; i < 4 && !e; i++) e = f[i];
  if (e) memset(r, 0, sizeof *r);
  perf__gpu_tolerate(e); /* handled here: not the next workload's error */
  return e;
}

/* The empty kernel of the launch reference, as PTX text: the driver
 * compiles it for whatever GPU runs it. */
static const char EMPTY_PTX[] = ".version 7.0\n.target sm_50\n.address_size 64\n"
                                ".visible .entry perf_empty()\n{\n\tret;\n}\n";

/* The empty kernel, loaded once per process (a failed load is tried
 * again at the next call, its library unloaded). Returns the first CUDA
 * error. */
static cudaError_t empty_kernel(cudaKernel_t *k)
{
  static cudaLibrary_t lib;
  static cudaKernel_t kernel;
  static int loaded;
  cudaError_t e = cudaSuccess;
  if (!loaded) {
    lib = NULL;
    e = cudaLibraryLoadData(&lib, EMPTY_PTX, NULL, NULL, 0, NULL, NULL, 0);
    if (!e) e = cudaLibraryGetKernel(&kernel, lib, "perf_empty");
    if (e && lib) perf__gpu_tolerate(cudaLibraryUnload(lib));
    loaded = !e;
  }
  *k = kernel;
  return e;
}

/* See reference.h. */
cudaError_t perf__reference_launch_open(perf__reference_launcher *l)
{
  cudaKernel_t k;
  l->st = NULL;
  cudaError_t e = empty_kernel(&k);
  if (!e) e = cudaStreamCreateWithFlags(&l->st, cudaStreamNonBlocking);
  double warm; /* the first launch on this device compiles the kernel */
  if (!e) e = perf__reference_launch_reading(l, &warm);
  if (e) perf__reference_launch_close(l);
  perf__gpu_tolerate(e);
  return e;
}

/* See reference.h. */
cudaError_t perf__reference_launch_reading(perf__reference_launcher *l, double *s)
{
  cudaKernel_t k;
  dim3 one = {1, 1, 1};
  *s = 0;
  cudaError_t e = l->st ? empty_kernel(&k) : cudaErrorInvalidResourceHandle;
  double t0 = perf__clock_now();
  for (int i = 0; i < PERF__REFERENCE_LAUNCHES && !e; i++)
    e = cudaLaunchKernel((const void *)k, one, one, NULL, 0, l->st);
  double t1 = perf__clock_now();
  if (!e) e = cudaStreamSynchronize(l->st);
  if (!e) *s = (t1 - t0) / PERF__REFERENCE_LAUNCHES;
  perf__gpu_tolerate(e);
  return e;
}

/* See reference.h. */
cudaError_t perf__reference_turnaround(perf__reference_launcher *l, double *s)
{
  cudaKernel_t k;
  dim3 one = {1, 1, 1};
  *s = 0;
  cudaError_t e = l->st ? empty_kernel(&k) : cudaErrorInvalidResourceHandle;
  double t0 = perf__clock_now();
  if (!e) e = cudaLaunchKernel((const void *)k, one, one, NULL, 0, l->st);
  if (!e) e = cudaStreamSynchronize(l->st);
  if (!e) *s = perf__clock_now() - t0;
  perf__gpu_tolerate(e);
  return e;
}

/* See reference.h. */
cudaError_t perf__reference_link_open(perf__reference_link *k)
{
  k->host = k->dev = NULL;
  cudaError_t e = cudaHostAlloc(&k->host, PERF__REFERENCE_LINK_BYTES, cudaHostAllocDefault);
  if (!e) e = cudaMalloc(&k->dev, PERF__REFERENCE_LINK_BYTES);
  if (!e) e = cudaMemset(k->dev, 0, PERF__REFERENCE_LINK_BYTES);
  if (!e) memset(k->host, 0, PERF__REFERENCE_LINK_BYTES);
  if (e) perf__reference_link_close(k);
  perf__gpu_tolerate(e);
  return e;
}

/* See reference.h. */
cudaError_t perf__reference_link_turnaround(perf__reference_launcher *l, perf__reference_link *k,
                                            int to_host, double *s)
{
  *s = 0;
  if (!l->st || !k->host || !k->dev) return cudaErrorInvalidResourceHandle;
  void *dst = to_host ? k->host : k->dev;
  const void *src = to_host ? k->dev : k->host;
  double t0 = perf__clock_now();
  cudaError_t e = cudaMemcpyAsync(dst, src, PERF__REFERENCE_LINK_BYTES,
                                  to_host ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice, l->st);
  if (!e) e = cudaStreamSynchronize(l->st);
  if (!e) *s = perf__clock_now() - t0;
  perf__gpu_tolerate(e);
  return e;
}

/* See reference.h. */
void perf__reference_link_close(perf__reference_link *k)
{
  if (k->dev) perf__gpu_tolerate(cudaFree(k->dev));
  if (k->host) perf__gpu_tolerate(cudaFreeHost(k->host));
  k->host = k->dev = NULL;
}

/* See reference.h. */
void perf__reference_launch_close(perf__reference_launcher *l)
{
  if (l->st) perf__gpu_tolerate(cudaStreamDestroy(l->st));
  l->st = NULL;
}

/* See reference.h. */
cudaError_t perf__reference_launch(perf__reference *r)
{
  perf__reference_launcher l;
  double t[PERF__REFERENCE_SAMPLES];
  memset(r, 0, sizeof *r);
  cudaError_t e = perf__reference_launch_open(&l);
  for (int i = 0; i < PERF__REFERENCE_SAMPLES && !e; i++)
    e = perf__reference_launch_reading(&l, &t[i]);
  if (!e) summarise(r, t, PERF__REFERENCE_SAMPLES);
  perf__reference_launch_close(&l);
  return e;
}
