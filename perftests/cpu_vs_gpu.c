/* cpu_vs_gpu.c — documents 001/002: CPU vs GPU matmul and nested sine, transfers, fusion. */
#include <cublas_v2.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cpu.h"
#include "ew_ops.h"
#include "kernels.h"
#include "perfgate.h"

/* Uniform values in [-1, 1) from a hash of (seed, index); touches every page
 * (pageable buffers are then resident, as torch.rand's are). Never fails. */
static void host_random(float *x, size_t n, uint64_t seed)
{
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) {
    uint64_t z = seed * 0x9e3779b97f4a7c15ull + i;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    x[i] = (float)(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
  }
}

static void destroy_stream(void *s) { PERF_CUDA(cudaStreamDestroy(s)); }
static void destroy_blas(void *h) { PERF_CUBLAS(cublasDestroy(h)); }
static void unload_module(void *m) { PERF_CUDA(perf_module_unload(m)); }

/* ---- matrix multiply: torch.matmul on fp32 tensors, CPU and GPU ---------- */

/* n x n row-major fp32 matrices: pageable on the host (as torch.rand makes
 * them), and their device copies; cuBLAS on the legacy stream, which orders
 * it with cudaMemcpy as torch's current stream does. */
typedef struct mm {
  int n;
  float *ha, *hb, *hc, *da, *db, *dc;
  cublasHandle_t blas;
} mm;

/* The device buffers first (without a GPU the test skips before any host
 * work); any allocation, copy or cuBLAS failure ends the test, and all of it
 * is released when the test ends. */
static void mm_init(mm *m, int n)
{
  size_t bytes = (size_t)n * n * sizeof(float);
  m->n = n;
  PERF_ALLOC_DEVICE(m->da, bytes);
  PERF_ALLOC_DEVICE(m->db, bytes);
  PERF_ALLOC_DEVICE(m->dc, bytes);
  PERF_ALLOC_HOST(m->ha, bytes);
  PERF_ALLOC_HOST(m->hb, bytes);
  PERF_ALLOC_HOST(m->hc, bytes);
  cpu_use_host_threads();
  host_random(m->ha, (size_t)n * n, 1);
  host_random(m->hb, (size_t)n * n, 2);
  PERF_CUDA(cudaMemcpy(m->da, m->ha, bytes, cudaMemcpyHostToDevice));
  PERF_CUDA(cudaMemcpy(m->db, m->hb, bytes, cudaMemcpyHostToDevice));
  PERF_CUBLAS(cublasCreate(&m->blas)); /* default math: strict fp32, no TF32 */
  PERF_DEFER(destroy_blas, m->blas);
}

/* dc = da db (row-major: C^T = B^T A^T in cuBLAS's column-major terms).
 * As a workload, 001's first no-IO version: matmul alone, timed on the host. */
static void mm_gemm(void *a)
{
  mm *m = a;
  const float one = 1.0f, zero = 0.0f;
  int n = m->n;
  PERF_CUBLAS(cublasSgemm(m->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, m->db, n,
                          m->da, n, &zero, m->dc, n));
}

static void mm_cpu(void *a)
{
  mm *m = a;
  cpu_sgemm(m->ha, m->hb, m->hc, m->n);
}

/* 001: matmul(x.cuda(), y.cuda()).cpu() — up, multiply, down. */
static void mm_gpu_io(void *a)
{
  mm *m = a;
  size_t bytes = (size_t)m->n * m->n * sizeof(float);
  PERF_CUDA(cudaMemcpy(m->da, m->ha, bytes, cudaMemcpyHostToDevice));
  PERF_CUDA(cudaMemcpy(m->db, m->hb, bytes, cudaMemcpyHostToDevice));
  mm_gemm(m);
  PERF_CUDA(cudaMemcpy(m->hc, m->dc, bytes, cudaMemcpyDeviceToHost));
}

/* 001's corrected no-IO version: matmul, then torch.cuda.synchronize(). */
static void mm_gpu(void *a)
{
  mm *m = a;
  mm_gemm(m);
  PERF_CUDA(cudaDeviceSynchronize());
}

/* The CPU and the GPU compute the same product: 64 entries agree within
 * 1e-4 of an entry's typical size, sqrt(n) / 2. */
static void mm_check(mm *m)
{
  enum { SAMPLES = 64 };
  size_t bytes = (size_t)m->n * m->n * sizeof(float);
  float *gpu_c;
  PERF_ALLOC_HOST(gpu_c, bytes);
  mm_gemm(m);
  PERF_CUDA(cudaMemcpy(gpu_c, m->dc, bytes, cudaMemcpyDeviceToHost));
  cpu_sgemm(m->ha, m->hb, m->hc, m->n);
  double gpu[SAMPLES], cpu[SAMPLES];
  for (int s = 0; s < SAMPLES; s++) {
    size_t i = (size_t)(s * 131 + 7) % m->n, j = (size_t)(s * 197 + 3) % m->n,
           at = i * m->n + j;
    gpu[s] = gpu_c[at];
    cpu[s] = m->hc[at];
  }
  PERF_ASSERT_NEAR(gpu, cpu, SAMPLES, 1e-4 * (sqrt((double)m->n) * 0.5));
}

enum { MM_IO = 1 << 11, MM_SUBMIT = 1 << 11 };

/* 001: "GPU starts beating CPU only at much larger dimensions ... if your
 * scale is not that large, maybe try running it on a CPU instead." The sweep
 * over n = 2^4 .. 2^9 (fp32 n x n, wall clock): the GPU with its transfers
 * overtakes the CPU between 2^5 and 2^9 (H100 host: 2^6 .. 2^8), the GPU
 * without them (the corrected no-IO timing: matmul, then synchronize)
 * earlier, between 2^4 and 2^7 (there, 2^5 .. 2^6); the
 * transfers cost at every size; at 2^5 the CPU wins clearly and at 2^10 the
 * GPU with transfers does. Charts: perftests/README.md. */
PERF_TEST(cpu_vs_gpu, matmul_sweep_gpu_overtakes_cpu)
{
  /* 2^4 .. 2^9: both crossovers lie inside; 2^10 (a 20 ms CPU matmul per
   * iteration, 2 of the suite's 25.7 s on an H200 when every claim ran
   * there) is the one point past them, for the large-size claim alone */
  PERF_SWEEP(n, PERF_VALUES(1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8, 1 << 9, 1 << 10)) {
    mm m;
    mm_init(&m, (int)n);
    mm_check(&m);
    /* each does one fp32 n^3 product: the charts give its FLOP/s too */
    double flops = 2.0 * (double)n * (double)n * (double)n;
    perf_workload cpu = PERF_WORKLOAD(mm_cpu, &m, .name = "cpu", .flops = flops,
                                      .flop_type = PERF_FLOP_FP32);
    perf_workload gpu_io = PERF_WORKLOAD(mm_gpu_io, &m, .name = "gpu_with_transfers",
                                         .flops = flops, .flop_type = PERF_FLOP_FP32);
    perf_workload gpu = PERF_WORKLOAD(mm_gpu, &m, .name = "gpu_without_transfers", .flops = flops,
                                      .flop_type = PERF_FLOP_FP32);
    /* 3x, not 5x: on a 32-core host with two H200s the CPU's 1024^3 matmul
     * is faster, and the GPU's lead was 3.98-7.69x (10 runs, 2026-11-22) */
    if (n == 1 << 10) {
      PERF_EXPECT_FASTER(gpu_io, cpu, 3.0);
      continue;
    }
    /* Tied within 15 %: at 2^6 and 2^7 the GPU with transfers and the CPU
     * are near even, and the ratio moves between processes by more than
     * its interval (0.61x-1.14x at 2^6 over 10 suite runs on the H100,
     * 2026-11-22; one run was 1.14x faster at 2^6 and 0.905x at 2^7). */
    PERF_EXPECT_CROSSOVER_TIE(gpu_io, cpu, n, 1 << 5, 1 << 9, 0.15);
    PERF_EXPECT_CROSSOVER(gpu, cpu, n, 1 << 4, 1 << 7);
    PERF_EXPECT_FASTER(gpu, gpu_io, 1.5);
    if (n == 1 << 5) PERF_EXPECT_FASTER(cpu, gpu_io, 3.0);
  }
}

/* 001: "If you are profiling GPU components, ensure you synchronize to get the
 * actual time taken. Else you're just calculating the time it takes to submit
 * the kernel to GPU!" Both on the host clock with nothing synchronised by the
 * harness (the submit clock), as the document's time.time(): a 2^11 fp32
 * matmul alone, and followed by torch.cuda.synchronize(). */
PERF_TEST(cpu_vs_gpu, host_timer_without_sync_sees_only_the_submission)
{
  mm m;
  mm_init(&m, MM_SUBMIT);
  perf_workload submitted = PERF_WORKLOAD(mm_gemm, &m, .clock = PERF_CLOCK_SUBMIT);
  perf_workload real = PERF_WORKLOAD(mm_gpu, &m, .clock = PERF_CLOCK_SUBMIT);
  PERF_EXPECT_FASTER(submitted, real, 10);
}

/* 001: "If you look at the graph you'll realize the actual compute is just
 * 50%, the other 50% is the IO." At 2^11 fp32 the transfers are at least
 * half of matmul-with-IO: the synced matmul alone takes at most half as
 * long. The transfers grow as n^2 and the product as n^3, so a smaller n
 * only makes the IO's share larger (2^12 cost 1.2 s of suite time on an
 * H200 for the same verdict). */
PERF_TEST(cpu_vs_gpu, matmul_transfers_are_at_least_half)
{
  mm m;
  mm_init(&m, MM_IO);
  perf_workload compute = PERF_WORKLOAD(mm_gpu, &m);
  perf_workload with_io = PERF_WORKLOAD(mm_gpu_io, &m);
  PERF_EXPECT_FASTER(compute, with_io, 2.0);
}

/* ---- nested sine: four torch.sin in a row --------------------------------- */

/* CHUNKED_N for the streams claim. */
enum { CHUNKED_N = 1 << 24, SIN_CHUNKS = 8, SIN_STREAMS = 3 };

/* n floats: pageable input and output (torch tensors), one device buffer;
 * for the streamed version, pinned input and output and its streams. */
typedef struct sines {
  size_t n;
  float *h, *hout, *pin, *pout, *d;
  cudaStream_t st[SIN_STREAMS];
} sines;

/* The device buffer first (without a GPU the test skips before any host
 * work); any failure ends the test, and all of it is released when the test
 * ends. */
static void sines_init(sines *s, size_t n, int pinned)
{
  size_t bytes = n * sizeof(float);
  *s = (sines){.n = n};
  PERF_ALLOC_DEVICE(s->d, bytes);
  PERF_ALLOC_HOST(s->h, bytes);
  PERF_ALLOC_HOST(s->hout, bytes);
  cpu_use_host_threads();
  host_random(s->h, n, 3);
  memset(s->hout, 0, bytes); /* every page resident, as h's */
  if (!pinned) return;
  for (int k = 0; k < SIN_STREAMS; k++) {
    PERF_CUDA(cudaStreamCreateWithFlags(&s->st[k], cudaStreamNonBlocking));
    PERF_DEFER(destroy_stream, s->st[k]);
  }
  PERF_ALLOC_PINNED(s->pin, bytes);
  PERF_ALLOC_PINNED(s->pout, bytes);
  memcpy(s->pin, s->h, bytes);
}

static void four_sines(float *x, size_t n, cudaStream_t st)
{
  for (int k = 0; k < 4; k++) PERF_CUDA(kern_ew_f32(x, n, 1, st));
}

static void sin_cpu(void *a)
{
  sines *s = a;
  for (int k = 0; k < 4; k++) cpu_ew_f32(s->h, s->n, 1);
}

/* 001's nested_sin_gpu: x.to('cuda'), four sin, synchronize, x.cpu(). */
static void sin_gpu_io(void *a)
{
  sines *s = a;
  size_t bytes = s->n * sizeof(float);
  PERF_CUDA(cudaMemcpy(s->d, s->h, bytes, cudaMemcpyHostToDevice));
  four_sines(s->d, s->n, 0);
  PERF_CUDA(cudaDeviceSynchronize());
  PERF_CUDA(cudaMemcpy(s->hout, s->d, bytes, cudaMemcpyDeviceToHost));
}

static void sin_gpu(void *a)
{
  sines *s = a;
  four_sines(s->d, s->n, 0);
  PERF_CUDA(cudaDeviceSynchronize());
}

/* 001: "CPU is faster than GPU at scale ... Based on the data at hand, we
 * suspect IO to be the culprit" and "the GPU time without IO is extremely
 * small". The sweep over n = 2^12 .. 2^24 floats (wall clock): at every size
 * the CPU (all cores, vectorised sinf) beats the GPU with its pageable
 * transfers, by 1.5-2.4x on the H100 host (asserted: 1.05x); from 2^18 up the
 * GPU without transfers beats the CPU by 2x and more; the transfers always
 * cost (1.2x), and from 2^20 up they are most of the GPU's time (5x). No
 * crossover is claimed between the CPU and the GPU without transfers: below
 * 2^14 both sit on their floors
 * (OpenMP's fork and join, ~21 us for four sines; a launch and a sync,
 * ~24 us), within 10 % of each other, and which one is ahead there changes
 * from run to run. Depends on the host's CPU (H100 host: 16 cores). Charts:
 * perftests/README.md. */
PERF_TEST(cpu_vs_gpu, nested_sin_sweep_cpu_beats_gpu_with_transfers)
{
  PERF_SWEEP(n, PERF_VALUES(1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24)) {
    sines s;
    sines_init(&s, (size_t)n, 0);
    perf_workload cpu = PERF_WORKLOAD(sin_cpu, &s, .name = "cpu");
    perf_workload with_io = PERF_WORKLOAD(sin_gpu_io, &s, .name = "gpu_with_transfers");
    perf_workload compute = PERF_WORKLOAD(sin_gpu, &s, .name = "gpu_without_transfers");
    /* 1.05x: 1.2x left under 2 % of headroom at 2^24, 1.1x under 5 % at
     * some points (intervals down to 1.12x over 10 suite runs on the H100,
     * 2026-11-22) */
    PERF_EXPECT_FASTER(cpu, with_io, 1.05);
    /* 1.5x, not 2x: 32 host cores (two-H200 host) leave the GPU 2.07x ahead
     * at 2^18, with intervals down to 2.0 (10 runs, 2026-11-22) */
    if (n >= 1 << 18) PERF_EXPECT_FASTER(compute, cpu, 1.5);
    if (n < 1 << 20) PERF_EXPECT_FASTER(compute, with_io, 1.2);
    else PERF_EXPECT_FASTER(compute, with_io, 5.0);
  }
}

/* The same work, serial on one stream and split into chunks over three
 * streams; both from and to pinned memory, both waiting for the end. */
static void sin_pinned_serial(void *a)
{
  sines *s = a;
  size_t bytes = s->n * sizeof(float);
  PERF_CUDA(cudaMemcpyAsync(s->d, s->pin, bytes, cudaMemcpyHostToDevice, s->st[0]));
  four_sines(s->d, s->n, s->st[0]);
  PERF_CUDA(cudaMemcpyAsync(s->pout, s->d, bytes, cudaMemcpyDeviceToHost, s->st[0]));
  PERF_CUDA(cudaStreamSynchronize(s->st[0]));
}

static void sin_pinned_chunked(void *a)
{
  sines *s = a;
  size_t per = s->n / SIN_CHUNKS, bytes = per * sizeof(float);
  for (int c = 0; c < SIN_CHUNKS; c++) {
    cudaStream_t st = s->st[c % SIN_STREAMS];
    size_t at = (size_t)c * per;
    PERF_CUDA(cudaMemcpyAsync(s->d + at, s->pin + at, bytes, cudaMemcpyHostToDevice, st));
    four_sines(s->d + at, per, st);
    PERF_CUDA(cudaMemcpyAsync(s->pout + at, s->d + at, bytes, cudaMemcpyDeviceToHost, st));
  }
  for (int k = 0; k < SIN_STREAMS; k++) PERF_CUDA(cudaStreamSynchronize(s->st[k]));
}

/* Both versions compute the nested sine of the same input. */
static void check_chunked(sines *s)
{
  enum { CHECK = 4096 };
  static float serial[CHECK];
  sin_pinned_serial(s);
  memcpy(serial, s->pout + s->n / 2, sizeof serial);
  memset(s->pout, 0xff, s->n * sizeof(float)); /* NaN poison */
  sin_pinned_chunked(s);
  int same = 1;
  for (int i = 0; i < CHECK; i++) same &= s->pout[s->n / 2 + i] == serial[i];
  float expect = perf_sin4(s->pin[s->n / 2]);
  PERF_ASSERT_TRUE(same && fabsf(serial[0] - expect) < 1e-5f);
}

/* 001, "Overlap CUDA streams": "we don't see much of a benefit, but it can
 * help in cases which are strongly IO heavy". Done the usual way (pinned
 * memory, chunks over three streams, each chunk's upload, sines and download
 * on one stream), the upload, compute and download of different chunks
 * overlap. */
PERF_TEST(cpu_vs_gpu, chunked_streams_overlap_transfers_and_compute)
{
  sines s;
  sines_init(&s, CHUNKED_N, 1);
  check_chunked(&s);
  /* each copies the input to the device and the result back */
  double bytes = CHUNKED_N * sizeof(float);
  perf_workload serial = PERF_WORKLOAD(sin_pinned_serial, &s, .bytes_written = bytes,
                                       .bytes_read = bytes);
  perf_workload chunked = PERF_WORKLOAD(sin_pinned_chunked, &s, .bytes_written = bytes,
                                        .bytes_read = bytes);
  PERF_EXPECT_FASTER(chunked, serial, 1.3);
  /* Copies from and to pinned memory: the chunks keep the host link busy
   * both ways nearly all the time (H100, PCIe gen 5 x16, 2026-11-26: 80.6
   * and 87.1 GB/s, 0.927 [0.886, 0.942] and 0.940 [0.852, 1.425] of
   * perfgate's pinned copies both ways in the same rounds; 64-69 % of the
   * spec 126 GB/s). */
  PERF_EXPECT_LINK_BANDWIDTH(chunked, 0.7);
}

/* ---- the first call of a kernel and of a library handle ------------------ */

/* The kernel side: a module kept loaded, its buffer and stream. */
typedef struct first {
  float *x;
  cudaStream_t s;
  perf_module *loaded;
} first;

/* A module's first call: load it, launch, wait, unload. */
static void kernel_first_call(void *a)
{
  first *f = a;
  perf_module *m;
  PERF_CUDA(perf_module_load(&m));
  PERF_CUDA(perf_module_launch(m, f->x, f->s));
  PERF_CUDA(cudaStreamSynchronize(f->s));
  PERF_CUDA(perf_module_unload(m));
}

static void kernel_warm_call(void *a)
{
  first *f = a;
  PERF_CUDA(perf_module_launch(f->loaded, f->x, f->s));
  PERF_CUDA(cudaStreamSynchronize(f->s));
}

/* A library handle's first call: create it, multiply, wait, destroy (the
 * warm call is mm_gpu with the fixture's handle). */
static void blas_first_call(void *a)
{
  mm *m = a;
  cublasHandle_t keep = m->blas;
  PERF_CUBLAS(cublasCreate(&m->blas));
  mm_gpu(m);
  PERF_CUBLAS(cublasDestroy(m->blas));
  m->blas = keep;
}

/* 001, "Warmup": "The first time a particular CUDA kernel is used, it needs to
 * be loaded into GPU memory. Subsequent calls to the same kernel can use the
 * already-loaded kernel, which significantly reduces execution time." Each
 * first call here is a real one: the module is loaded (and the cuBLAS handle
 * created) anew every time. */
PERF_TEST(cpu_vs_gpu, first_call_is_much_slower_than_warm_calls)
{
  first f;
  PERF_ALLOC_DEVICE(f.x, 32 * sizeof(float));
  PERF_CUDA(cudaMemset(f.x, 0, 32 * sizeof(float)));
  PERF_CUDA(cudaStreamCreateWithFlags(&f.s, cudaStreamNonBlocking));
  PERF_DEFER(destroy_stream, f.s);
  PERF_CUDA(perf_module_load(&f.loaded));
  PERF_DEFER(unload_module, f.loaded);
  mm m; /* a 2^6 matmul for the cuBLAS side */
  mm_init(&m, 64);
  kernel_warm_call(&f);
  float x0;
  PERF_CUDA(cudaMemcpy(&x0, f.x, sizeof x0, cudaMemcpyDeviceToHost));
  PERF_ASSERT_TRUE(x0 == 1.0f); /* the loaded kernel ran */
  perf_workload kernel_first = PERF_WORKLOAD(kernel_first_call, &f, .stream = f.s);
  perf_workload kernel_warm = PERF_WORKLOAD(kernel_warm_call, &f, .stream = f.s);
  perf_workload blas_first = PERF_WORKLOAD(blas_first_call, &m);
  perf_workload blas_warm = PERF_WORKLOAD(mm_gpu, &m);
  /* 2.5x: 3x kept under 5 % of headroom on an H200 (intervals down to
   * 3.15x over 10 runs, 2026-11-22) */
  PERF_EXPECT_FASTER(kernel_warm, kernel_first, 2.5);
  PERF_EXPECT_FASTER(blas_warm, blas_first, 5);
}

/* ---- fused nested sine ---------------------------------------------------- */

typedef struct fuse {
  size_t n; /* floats: beyond the L2 (perf_bytes_beyond_l2) */
  float *x, *y;
  cudaStream_t s;
} fuse;

enum { FUSE_MIN = 1 << 24 }; /* floats: 64 MiB at least */

static void sin_four_kernels(void *a)
{
  fuse *f = a;
  four_sines(f->x, f->n, f->s);
}

static void sin_fused(void *a)
{
  fuse *f = a;
  PERF_CUDA(kern_sin4_f32(f->x, f->n, f->s));
}

/* The fused kernel's result is the four kernels' result, bit for bit. */
static void check_sin_fusion(fuse *f)
{
  enum { CHECK = 4096 };
  static float a[CHECK], b[CHECK];
  size_t bytes = f->n * sizeof(float);
  PERF_CUDA(cudaMemcpyAsync(f->y, f->x, bytes, cudaMemcpyDeviceToDevice, f->s));
  four_sines(f->x, f->n, f->s);
  PERF_CUDA(kern_sin4_f32(f->y, f->n, f->s));
  PERF_CUDA(cudaMemcpyAsync(a, f->x + f->n / 3, sizeof a, cudaMemcpyDeviceToHost, f->s));
  PERF_CUDA(cudaMemcpyAsync(b, f->y + f->n / 3, sizeof b, cudaMemcpyDeviceToHost, f->s));
  PERF_CUDA(cudaStreamSynchronize(f->s));
  PERF_ASSERT_TRUE(memcmp(a, b, sizeof a) == 0);
}

/* 001, "Compiled kernels": "we reduce the nested_sin execution time by almost
 * 50% from 100us to 50us approx" — one fused kernel against four. */
PERF_TEST(cpu_vs_gpu, fused_nested_sin_is_twice_as_fast)
{
  fuse f;
  PERF_CUDA(cudaStreamCreateWithFlags(&f.s, cudaStreamNonBlocking));
  PERF_DEFER(destroy_stream, f.s);
  f.n = perf_bytes_beyond_l2(FUSE_MIN * sizeof(float)) / sizeof(float);
  PERF_ALLOC_DEVICE(f.x, f.n * sizeof(float));
  PERF_ALLOC_DEVICE(f.y, f.n * sizeof(float));
  PERF_CUDA(kern_fill_f32(f.x, f.n, 4, 3.0f, f.s));
  check_sin_fusion(&f);
  perf_workload four = PERF_WORKLOAD(sin_four_kernels, &f, .stream = f.s);
  perf_workload one = PERF_WORKLOAD(sin_fused, &f, .stream = f.s);
  PERF_EXPECT_FASTER(one, four, 2.0);
}
