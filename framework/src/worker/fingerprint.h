/* fingerprint.h — what a measurement ran on: the GPU, or the CPU for host-only work, and its baseline file. */
#ifndef PERF_FINGERPRINT_H
#define PERF_FINGERPRINT_H

#include <stddef.h>

#include "base/baseline.h"

/* Fills b's fingerprint with device 0's name, compute capability, SM
 * count, memory, L2, driver and runtime versions, max and current SM clock,
 * ECC and UUID (NVML, loaded with dlopen, gives the driver release and the
 * current clock when present; "unknown" otherwise). Returns 0, or the error
 * of perf__gpu() (PERF__ENODEV / PERF__ECUDA) with nothing set. Worker only. */
int perf__fingerprint_gpu(perf__baseline *b);

/* Fills b's fingerprint with the CPU model, logical CPU count and memory.
 * Never fails (fields it cannot read say "unknown"). */
void perf__fingerprint_host(perf__baseline *b);

/* The fingerprint's model name ("name" field), or "unknown". */
const char *perf__fingerprint_model(const perf__baseline *b);

/* dir/<slug of the model>.yaml into out. Returns out. */
char *perf__fingerprint_path(const char *dir, const perf__baseline *b, char *out,
                    size_t len);

#endif
