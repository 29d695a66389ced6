/* machine.h — what host-only work ran on: the CPU's model, its logical CPUs and memory, as a baseline fingerprint. */
#ifndef PERF_MACHINE_H
#define PERF_MACHINE_H

#include "base/baseline.h"

/* Fills b's fingerprint with the CPU model, logical CPU count and memory.
 * Never fails (fields it cannot read say "unknown"). */
void perf__machine_host(perf__baseline *b);

#endif
