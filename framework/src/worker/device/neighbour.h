/* neighbour.h — the processes that shared the GPU with a claim, in words: who, what they used. */
#ifndef PERF_NEIGHBOUR_H
#define PERF_NEIGHBOUR_H

#include <stddef.h>

#include "worker/device/cotenant.h"

/* The foreign processes seen using the GPU since `since` (our clock) or
 * less than PERF__COTENANT_QUIET_S before it (perf__cotenant_overlaps's
 * rule: the processes of the spans it finds), busiest first: "pid 4145 (python3), 97 % SM; pid 77, 12 % SM" (no name
 * where /proc does not show it), "2 processes NVML lists by host PID (not
 * nameable from this PID namespace)", "pid 9 (x), SM share unknown",
 * "GPU time no process NVML lists accounts for (up to 60 % of a
 * window)"; "" when none. Never fails (truncates). */
const char *perf__neighbour_describe(const perf__cotenant *s, double since, char *buf,
                                     size_t len);

#endif
