/* fingerprint.h — what a GPU measurement ran on, as device 0 describes itself. */
/* Its name, capability, memory, clocks, driver and UUID. */
#ifndef PERF_FINGERPRINT_H
#define PERF_FINGERPRINT_H

#include <stddef.h>

#include "baseline/baseline.h"
#include "baseline/peaks.h"

/* Fills b's fingerprint with device 0's name, compute capability, SM
 * count, memory, L2, driver and runtime versions, max and current SM clock,
 * ECC and UUID (NVML, loaded with dlopen, gives the driver release and the
 * current clock when present; "unknown" otherwise). Returns 0, or the error
 * of perf__gpu() (PERF__ENODEV / PERF__ECUDA) with nothing set. Worker only. */
int perf__fingerprint_gpu(perf__baseline *b);

/* What device 0 says of itself for its spec peaks (baseline/peaks.h: SM
 * count and highest clock, memory clock and bus width, from
 * cudaDeviceGetAttribute: CUDA 13's cudaDeviceProp has no memory clock),
 * read once per process; all 0 without a device, a member 0 where the
 * runtime did not give it. Worker only. Never fails. */
const perf__peaks_device *perf__fingerprint_peaks(void);

#endif
