/* syncdetect.h — the untimed detection pass: CUPTI callbacks count the host syncs of a workload or a region. */
#ifndef PERF_SYNCDETECT_H
#define PERF_SYNCDETECT_H

/* Detaches CUPTI if a test ended inside a detection pass (an ASSERT or a
 * CUDA error in the code under check). Never fails. */
void perf__sync_reset(void);

#endif
