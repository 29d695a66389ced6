/* noise_load.c — bench-noise's injected load: GPU co-tenants, a CPU busy loop, a GPU probe. */
/* The co-tenants are of six kinds: mixed, copies, tiny kernels, GEMMs,
 * bursts, idle. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "kernels.h"

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
  (void)sig;
  stop = 1;
}

/* Dies with the process that started it (bench/noise.sh), however that one
 * ends: sig is what it gets then. Returns -1 when that process is already
 * gone. */
static int die_with_parent(int sig)
{
  pid_t parent = getppid();
  if (prctl(PR_SET_PDEATHSIG, sig) != 0) return -1;
  return getppid() == parent && parent != 1 ? 0 : -1;
}

/* "probe": names device 0 of those visible; exit 2 with the CUDA error when
 * there is none. */
static int probe(void)
{
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  struct cudaDeviceProp p;
  if (e == cudaSuccess && n > 0) e = cudaGetDeviceProperties(&p, 0);
  if (e != cudaSuccess || n <= 0) {
    fprintf(stderr, "noise-load: no CUDA device (%s)\n",
            e != cudaSuccess ? cudaGetErrorString(e) : "none visible");
    return 2;
  }
  printf("noise-load: GPU 0 of %d visible: %s\n", n, p.name);
  return 0;
}

/* "spin": one CPU busy loop, until a signal ends it (no handler: TERM,
 * INT and the parent's death all kill it at once). */
static int spin(void)
{
  if (die_with_parent(SIGKILL)) return 0;
  for (volatile unsigned long i = 0;; i++) {
  }
}

/* The co-tenant's buffers and stream. */
typedef struct load {
  cudaStream_t s;
  float *x;        /* the largest element-wise size */
  void *gemm;      /* A, B, C: GEMM_N^2 fp16 each */
  void *host;      /* pinned, COPY_BYTES */
  void *dev_copy;  /* COPY_BYTES */
} load;

enum { GEMM_N = 2048 };
static const size_t COPY_BYTES = (size_t)64 << 20;
/* Element-wise x + 1 at four sizes (about 2 us to 230 us on an H100) and
 * how many launches of each a round queues. */
static const struct {
  size_t n;
  int reps;
} EW[] = {{(size_t)1 << 12, 64}, {(size_t)1 << 18, 32}, {(size_t)1 << 22, 8}, {(size_t)1 << 26, 2}};

/* Reports a failed step; returns 2. */
static int failed(const char *what, const char *err)
{
  fprintf(stderr, "noise-load: gpu co-tenant: %s failed: %s\n", what, err);
  return 2;
}

#define TRY(call, what)                                                   \
  do {                                                                    \
    cudaError_t e_ = (call);                                              \
    if (e_ != cudaSuccess) return failed(what, cudaGetErrorString(e_));   \
  } while (0)

/* Allocates and fills the buffers. Waiting for the GPU blocks instead of
 * spinning, so that the co-tenant loads the GPU, not a CPU (the "both"
 * injection adds the CPUs). Returns 0, or 2 after saying which step
 * failed. */
static int setup(load *l)
{
  size_t gemm_elems = (size_t)3 * GEMM_N * GEMM_N;
  TRY(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync), "cudaSetDeviceFlags");
  TRY(cudaStreamCreateWithFlags(&l->s, cudaStreamNonBlocking), "cudaStreamCreate");
  TRY(cudaMalloc((void **)&l->x, EW[3].n * sizeof(float)), "cudaMalloc");
  TRY(cudaMalloc(&l->gemm, gemm_elems * 2), "cudaMalloc");
  TRY(cudaMalloc(&l->dev_copy, COPY_BYTES), "cudaMalloc");
  TRY(cudaMallocHost(&l->host, COPY_BYTES), "cudaMallocHost");
  memset(l->host, 0, COPY_BYTES);
  TRY(kern_fill_f32(l->x, EW[3].n, 7, 1.0f, l->s), "kern_fill_f32");
  TRY(kern_fill_f16(l->gemm, gemm_elems, 7, 1.0f, l->s), "kern_fill_f16");
  return 0;
}

/* Queues n launches of each element-wise size from `from` on. Returns 0
 * or 2 (said). */
static int queue_ew(load *l, size_t from, size_t to)
{
  for (size_t k = from; k < to; k++)
    for (int r = 0; r < EW[k].reps; r++) TRY(kern_ew_f32(l->x, EW[k].n, 3, l->s), "kern_ew_f32");
  return 0;
}

/* Queues four fp16 GEMMs. Returns 0 or 2 (said). */
static int queue_gemms(load *l)
{
  size_t nn = (size_t)GEMM_N * GEMM_N;
  unsigned short *g = l->gemm;
  for (int r = 0; r < 4; r++) {
    int st = kern_gemm_f16(g, g + nn, g + 2 * nn, GEMM_N, l->s);
    if (st) {
      char code[32];
      snprintf(code, sizeof code, "cuBLAS status %d", st);
      return failed("kern_gemm_f16", code);
    }
  }
  return 0;
}

/* Queues a pinned copy to the device (and one back when both). Returns 0
 * or 2 (said). */
static int queue_copies(load *l, int both)
{
  TRY(cudaMemcpyAsync(l->dev_copy, l->host, COPY_BYTES, cudaMemcpyHostToDevice, l->s),
      "cudaMemcpyAsync (host to device)");
  if (both)
    TRY(cudaMemcpyAsync(l->host, l->dev_copy, COPY_BYTES, cudaMemcpyDeviceToHost, l->s),
        "cudaMemcpyAsync (device to host)");
  return 0;
}

/* The co-tenant's kinds: what one round queues (bursty: mixed rounds for
 * BURST_S, then as long idle). */
typedef enum { MIXED, COPY, TINY, MATMUL, BURSTY, IDLE } kind;
static const char *const KINDS[] = {"mixed", "copy", "tiny", "matmul", "bursty", "idle"};
static const double BURST_S = 0.5;

/* Queues one round of kind k: mixed (and bursty) the element-wise kernels
 * at each size, four GEMMs, a copy to the device and one back; copy a
 * copy to the device only; tiny the smallest kernels; matmul the GEMMs.
 * Returns 0 or 2 (said). */
static int queue_round(load *l, kind k)
{
  switch (k) {
  case COPY: return queue_copies(l, 0);
  case TINY: return queue_ew(l, 0, 1);
  case MATMUL: return queue_gemms(l);
  default: break;
  }
  int rc = queue_ew(l, 0, sizeof EW / sizeof EW[0]);
  if (!rc) rc = queue_gemms(l);
  return rc ? rc : queue_copies(l, 1);
}

/* Writes "ready PID" to path through a temporary file and a rename, so
 * that the file appears whole. Returns 0 or 2 (said). */
static int say_ready(const char *path)
{
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return failed("writing the ready file", path);
  int bad = fprintf(f, "ready %ld\n", (long)getpid()) < 0;
  if (fclose(f) != 0 || bad || rename(tmp, path) != 0) return failed("writing the ready file", path);
  return 0;
}

static double now_s(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Sleeps s seconds (less when a signal comes). */
static void nap(double s)
{
  struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&t, NULL);
}

/* The kind named, or -1. */
static int kind_of(const char *name)
{
  for (int k = 0; k < (int)(sizeof KINDS / sizeof KINDS[0]); k++)
    if (!strcmp(name, KINDS[k])) return k;
  return -1;
}

/* "gpu READY [KIND]": the co-tenant. Queues rounds of KIND (mixed when
 * none: see queue_round) on device 0 of those visible, one after another,
 * until SIGTERM or SIGINT (or its parent's death); bursty rounds for
 * BURST_S, then as long idle; idle holds its context and queues nothing.
 * Writes READY once the first round is queued. Returns 0 when stopped, 2
 * when a CUDA step failed or KIND is unknown (said). */
static int gpu(const char *ready, const char *name)
{
  int k = kind_of(name);
  if (k < 0) return failed("choosing the kind", name);
  struct sigaction sa = {.sa_handler = on_stop};
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  if (die_with_parent(SIGTERM)) return 0;
  load l = {0};
  int rc = setup(&l);
  double t0 = now_s();
  long rounds = 0;
  if (!rc && cudaStreamSynchronize(l.s) != cudaSuccess) rc = failed("setup", "cudaStreamSynchronize");
  if (!rc && k == IDLE) rc = say_ready(ready);
  while (!rc && k == IDLE && !stop) nap(0.05);
  double phase = now_s();
  for (; !rc && !stop && k != IDLE; rounds++) {
    rc = queue_round(&l, (kind)k);
    if (!rc && rounds == 0) rc = say_ready(ready);
    if (!rc) {
      cudaError_t e = cudaStreamSynchronize(l.s);
      if (e != cudaSuccess) rc = failed("cudaStreamSynchronize", cudaGetErrorString(e));
    }
    if (k == BURSTY && now_s() - phase >= BURST_S) {
      nap(BURST_S);
      phase = now_s();
    }
  }
  if (!rc)
    printf("noise-load: gpu co-tenant (pid %ld, %s) stopped after %ld rounds in %.1f s\n",
           (long)getpid(), KINDS[k], rounds, now_s() - t0);
  return rc; /* the process's end frees the context and its memory */
}

int main(int argc, char **argv)
{
  if (argc == 2 && !strcmp(argv[1], "probe")) return probe();
  if (argc == 2 && !strcmp(argv[1], "spin")) return spin();
  if ((argc == 3 || argc == 4) && !strcmp(argv[1], "gpu"))
    return gpu(argv[2], argc == 4 ? argv[3] : "mixed");
  fprintf(stderr, "usage: noise-load probe | spin | gpu READY_FILE [KIND]\n"
                  "  probe  names the GPU (exit 2 without one)\n"
                  "  spin   one CPU busy loop until killed\n"
                  "  gpu    a GPU co-tenant until SIGTERM; READY_FILE appears once its first "
                  "work is queued;\n"
                  "         KIND: mixed (kernels, GEMMs, copies; the default), copy (pinned "
                  "copies to the device),\n"
                  "         tiny (the smallest kernels), matmul (fp16 GEMMs), bursty (mixed "
                  "for 0.5 s, idle 0.5 s),\n"
                  "         idle (holds a context, queues nothing)\n");
  return 2;
}
