/* blocker.h — the device and cold clocks' GPU side: a kernel the host releases, the L2 flush. */
#ifndef PERF_BLOCKER_H
#define PERF_BLOCKER_H

#include <cuda_runtime_api.h>

/* How long the blocking kernel waits for its release before it gives up
 * and lets the queued work run (the host could not queue the batch: the
 * launch queue was full, or an iteration waits for the GPU). */
#define PERF__BLOCK_TIMEOUT_NS 200000000ull

/* Launches the blocking kernel on stream s: work queued behind it waits
 * until perf__blocker_release() or the timeout. Loads the kernel (PTX, JIT-compiled
 * by the driver) on first use. Returns the first CUDA error (the kernel is
 * then not running and perf__blocker_release is harmless). */
cudaError_t perf__blocker_hold(cudaStream_t s);

/* Releases the kernel launched by the last perf__blocker_hold. Never fails. */
void perf__blocker_release(void);

/* After the work behind the last block has finished: 1 when the kernel gave
 * up waiting (the sample included the host's time), 0 when released. */
int perf__blocker_timed_out(void);

/* Queues a memset of an L2-sized buffer (allocated on first use, kept) on
 * s, so that nothing the next work reads is in L2. *bytes (may be NULL)
 * gets its size. Returns the first CUDA error. */
cudaError_t perf__blocker_l2_flush(cudaStream_t s, size_t *bytes);

/* The blocking kernel's PTX text (for the self-tests: ptxas must accept it). */
const char *perf__blocker_ptx(void);

#endif
