/* hostcause.h — how the host interfered with a run, from two load snapshots, as one phrase. */
/* The phrase names the dominant cause with its numbers and its remedy. */
#ifndef PERF_HOSTCAUSE_H
#define PERF_HOSTCAUSE_H

#include <stddef.h>

#include "host/hostload.h"

/* The thresholds of host interference, for a claim's host cause and for
 * the preflight's unfit runner (host/preflight.c): the cgroup's quota
 * throttled 2 % of the time or more; the hypervisor stole 5 % of the CPUs'
 * time or more; other processes kept a quarter of the CPUs busy or more
 * (and at least one CPU's worth). */
#define PERF__HOSTCAUSE_THROTTLED 0.02
#define PERF__HOSTCAUSE_STEAL 0.05
#define PERF__HOSTCAUSE_OTHERS 0.25
/* ... and the runner's core kept busy by other processes (on its other
 * hardware thread: SMT) half of one CPU's time or more. */
#define PERF__HOSTCAUSE_SMT 0.5

/* The CPUs other processes kept busy between snapshots a and b of one
 * process: the host's busy share times its CPUs, less that process's CPU
 * time and its reaped children's over the interval; 0 when unknown, never
 * negative. Never fails. */
double perf__hostcause_others(const perf__hostload *a, const perf__hostload *b);

/* Names the dominant cause of host interference between snapshots a and b
 * of the process that ran the workload, which may use cpus CPUs and
 * host_threads threads (perf_host_threads()): CFS quota throttling, CPU
 * steal, the workload's own threads leaving the runner no CPU, other
 * processes' load, a busy SMT sibling of the runner's CPU, a low CPU clock
 * (thresholds in docs/noise.md). Writes the
 * phrase into buf[len] and returns 1; when no cause passes its threshold
 * writes "no host cause seen: ..." with the numbers and returns 0. Never
 * fails (truncates). */
int perf__hostcause_name(const perf__hostload *a, const perf__hostload *b, int cpus,
                         int host_threads, char *buf, size_t len);

#endif
