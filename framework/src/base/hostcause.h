/* hostcause.h — how the host interfered with a run, from two load snapshots: the dominant cause with its numbers and its remedy, as one phrase. */
#ifndef PERF_HOSTCAUSE_H
#define PERF_HOSTCAUSE_H

#include <stddef.h>

#include "base/hostload.h"

/* Names the dominant cause of host interference between snapshots a and b
 * of the process that ran the workload, which may use cpus CPUs and
 * host_threads threads (perf_host_threads()): CFS quota throttling, CPU
 * steal, the workload's own threads leaving the runner no CPU, other
 * processes' load, a low CPU clock (thresholds in the README). Writes the
 * phrase into buf[len] and returns 1; when no cause passes its threshold
 * writes "no host cause seen: ..." with the numbers and returns 0. Never
 * fails (truncates). */
int perf__hostcause_name(const perf__hostload *a, const perf__hostload *b, int cpus,
                         int host_threads, char *buf, size_t len);

#endif
