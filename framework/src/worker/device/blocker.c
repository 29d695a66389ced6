/* blocker.c — the device and cold clocks' GPU side: a kernel the host releases, the L2 flush. */
#include "worker/device/blocker.h"

#include <stddef.h>

/* perf__blocker_hold(flag, want, timeout_ns, timed_out): one thread polls the
 * host-mapped word *flag until it equals want, or gives up after timeout_ns
 * of %globaltimer and sets *timed_out. Hand-written PTX, so the framework
 * needs no nvcc; the driver compiles it for the GPU at load time. */
static const char ptx[] =
    ".version 7.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry perf__blocker_hold(.param .u64 flag, .param .u32 want,\n"
    "                            .param .u64 timeout_ns, .param .u64 timed_out)\n"
    "{\n"
    "  .reg .pred %p<3>;\n"
    "  .reg .b32 %r<4>;\n"
    "  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [flag];\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n"
    "  ld.param.u32 %r1, [want];\n"
    "  ld.param.u64 %rd2, [timeout_ns];\n"
    "  ld.param.u64 %rd3, [timed_out];\n"
    "  cvta.to.global.u64 %rd3, %rd3;\n"
    "  mov.u64 %rd4, %globaltimer;\n"
    "WAIT:\n"
    "  ld.relaxed.sys.global.u32 %r2, [%rd1];\n"
    "  setp.eq.u32 %p1, %r2, %r1;\n"
    "  @%p1 bra DONE;\n"
    "  nanosleep.u32 100;\n"
    "  mov.u64 %rd5, %globaltimer;\n"
    "  sub.u64 %rd6, %rd5, %rd4;\n"
    "  setp.lt.u64 %p2, %rd6, %rd2;\n"
    "  @%p2 bra WAIT;\n"
    "  mov.u32 %r3, 1;\n"
    "  st.relaxed.sys.global.u32 [%rd3], %r3;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n";

/* Host-mapped words the kernel reads and writes. */
typedef struct shared_words {
  volatile unsigned flag;
  volatile unsigned timed_out;
} shared_words;

static struct {
  int ready;
  cudaLibrary_t lib;
  cudaKernel_t kernel;
  shared_words *host; /* pinned, mapped */
  shared_words *dev;  /* the same words as the GPU sees them */
  unsigned gen;       /* value the last launched kernel waits for */
  void *l2;           /* flush buffer */
  size_t l2_bytes;
} blk;

/* Never fails. */
const char *perf__blocker_ptx(void) { return ptx; }

/* Loads the kernel and maps the shared words once per process. Returns the
 * first CUDA error; a later call retries. */
static cudaError_t load(void)
{
  cudaError_t e;
  if (blk.ready) return cudaSuccess;
  e = cudaLibraryLoadData(&blk.lib, ptx, NULL, NULL, 0, NULL, NULL, 0);
  if (e) return e;
  e = cudaLibraryGetKernel(&blk.kernel, blk.lib, "perf__blocker_hold");
  if (!e) e = cudaHostAlloc((void **)&blk.host, sizeof *blk.host, cudaHostAllocMapped);
  if (!e) e = cudaHostGetDevicePointer((void **)&blk.dev, blk.host, 0);
  if (e) {
    if (blk.host) cudaFreeHost(blk.host);
    cudaLibraryUnload(blk.lib);
    blk.host = NULL;
    return e;
  }
  blk.host->flag = blk.gen = 0;
  blk.ready = 1;
  return cudaSuccess;
}

/* See blocker.h. */
cudaError_t perf__blocker_hold(cudaStream_t s)
{
  cudaError_t e = load();
  if (e) return e;
  unsigned want = ++blk.gen;
  unsigned long long timeout = PERF__BLOCK_TIMEOUT_NS;
  unsigned *flag = (unsigned *)&blk.dev->flag, *out = (unsigned *)&blk.dev->timed_out;
  void *args[] = {&flag, &want, &timeout, &out};
  blk.host->timed_out = 0;
  return cudaLaunchKernel((const void *)blk.kernel, (dim3){1, 1, 1},
                          (dim3){1, 1, 1}, args, 0, s);
}

/* See blocker.h. */
void perf__blocker_release(void)
{
  if (blk.ready) __atomic_store_n(&blk.host->flag, blk.gen, __ATOMIC_RELEASE);
}

/* See blocker.h. */
int perf__blocker_timed_out(void)
{
  return blk.ready && __atomic_load_n(&blk.host->timed_out, __ATOMIC_ACQUIRE);
}

/* See blocker.h. */
cudaError_t perf__blocker_l2_flush(cudaStream_t s, size_t *bytes)
{
  if (!blk.l2) {
    int dev = 0, l2 = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (!e) e = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
    if (!e && l2 <= 0) l2 = 1 << 20;
    if (!e) e = cudaMalloc(&blk.l2, (size_t)l2);
    if (e) return e;
    blk.l2_bytes = (size_t)l2;
  }
  if (bytes) *bytes = blk.l2_bytes;
  return cudaMemsetAsync(blk.l2, (int)(blk.gen & 0xff), blk.l2_bytes, s);
}
