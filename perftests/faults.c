/* faults.c — the opt-in GPU fault suite: each fault fails its own test and the next one passes. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kernels.h"
#include "perfgate.h"

/* Not part of a normal run: `--filter='faults.*'` selects these (see
 * PERF_TEST_OPT_IN). Each fault test is followed by after_*, which must
 * pass: it runs in the fresh worker the runner starts after a failure, and
 * checks that the GPU is usable again (no error, half its memory free and
 * allocatable, a real timed claim). Run it with a short --timeout for the hung kernel:
 *   build/perftest --filter='faults.*' --timeout=20 */

typedef struct membuf {
  void *p;
  size_t bytes;
  cudaStream_t s;
} membuf;

static void destroy_stream(void *s) { PERF_CUDA(cudaStreamDestroy(s)); }

/* Workloads: a CUDA error ends the test (PERF_CUDA). */
static void memset_quarter(void *arg)
{
  membuf *b = arg;
  PERF_CUDA(cudaMemsetAsync(b->p, 1, b->bytes / 4, b->s));
}

static void memset_all(void *arg)
{
  membuf *b = arg;
  PERF_CUDA(cudaMemsetAsync(b->p, 2, b->bytes, b->s));
}

/* The after_* check: this worker's pid (the faulting test's worker was a
 * different one), a clean context, at least half the device's memory free
 * and allocatable, and a claim measured with the events clock. Fails the
 * test on any CUDA error or failed check. */
static void gpu_is_healthy(void)
{
  size_t free_b = 0, total_b = 0;
  PERF_CUDA(cudaMemGetInfo(&free_b, &total_b));
  printf("worker pid %ld\n", (long)getpid());
  PERF_EXPECT_TRUE(cudaGetLastError() == cudaSuccess);
  PERF_EXPECT_TRUE(free_b >= total_b / 2);
  void *half = NULL; /* allocatable, and given back at once */
  PERF_CUDA(cudaMalloc(&half, total_b / 2));
  PERF_CUDA(cudaFree(half));
  membuf b = {.bytes = (size_t)256 << 20};
  PERF_CUDA(cudaStreamCreateWithFlags(&b.s, cudaStreamNonBlocking));
  PERF_DEFER(destroy_stream, b.s);
  PERF_ALLOC_DEVICE(b.p, b.bytes);
  perf_workload quarter = PERF_WORKLOAD(memset_quarter, &b, .stream = b.s);
  perf_workload all = PERF_WORKLOAD(memset_all, &b, .stream = b.s);
  PERF_EXPECT_FASTER(quarter, all, 2);
}

typedef struct far_store {
  int *buf;
  cudaStream_t s;
} far_store;

/* Workloads: a CUDA error ends the test (PERF_CUDA). */
static void store_far(void *arg)
{
  far_store *f = arg;
  PERF_CUDA(kern_store_far(f->buf, f->s));
}

static void store_near(void *arg)
{
  far_store *f = arg;
  PERF_CUDA(cudaMemsetAsync(f->buf, 0, 4096, f->s));
}

/* A kernel under measurement stores to an unmapped address: the claim
 * ends with cudaErrorIllegalAddress, which poisons the context for good. */
PERF_TEST_OPT_IN(faults, illegal_address)
{
  far_store f;
  PERF_CUDA(cudaStreamCreateWithFlags(&f.s, cudaStreamNonBlocking));
  PERF_DEFER(destroy_stream, f.s);
  PERF_ALLOC_DEVICE(f.buf, 4096);
  perf_workload good = PERF_WORKLOAD(store_near, &f, .stream = f.s);
  perf_workload bad = PERF_WORKLOAD(store_far, &f, .stream = f.s);
  PERF_EXPECT_FASTER(good, bad, 1.1);
}
PERF_TEST_OPT_IN(faults, after_illegal_address) { gpu_is_healthy(); }

/* Allocates 1 GiB blocks, never freed (on purpose: not PERF_ALLOC_DEVICE),
 * until the device says no. */
PERF_TEST_OPT_IN(faults, device_memory_exhausted)
{
  for (int i = 0; i < 4096; i++) {
    void *p;
    PERF_CUDA(cudaMalloc(&p, (size_t)1 << 30));
  }
  PERF_EXPECT_TRUE(!"4 TiB allocated: no device has that much");
}
PERF_TEST_OPT_IN(faults, after_device_memory_exhausted) { gpu_is_healthy(); }

/* A kernel that never ends, and a host that waits for it: only the
 * runner's --timeout ends this test (its worker is killed). */
PERF_TEST_OPT_IN(faults, kernel_never_ends)
{
  int *flag;
  PERF_ALLOC_DEVICE(flag, sizeof *flag);
  PERF_CUDA(cudaMemset(flag, 0, sizeof *flag));
  PERF_CUDA(kern_spin_until(flag, 0));
  printf("kernel launched; waiting for it\n");
  fflush(stdout);
  PERF_CUDA(cudaDeviceSynchronize());
  PERF_EXPECT_TRUE(!"the spinning kernel ended");
}
PERF_TEST_OPT_IN(faults, after_kernel_never_ends) { gpu_is_healthy(); }

/* The test calls exit() with GPU work still queued. */
PERF_TEST_OPT_IN(faults, test_calls_exit)
{
  size_t bytes = (size_t)1 << 30;
  void *p;
  PERF_ALLOC_DEVICE(p, bytes);
  for (int i = 0; i < 8; i++) PERF_CUDA(cudaMemsetAsync(p, i, bytes, 0));
  exit(3);
}
PERF_TEST_OPT_IN(faults, after_test_calls_exit) { gpu_is_healthy(); }
