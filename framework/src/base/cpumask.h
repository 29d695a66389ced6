/* cpumask.h — the CPUs this run may use: the affinity mask, unless an OpenMP runtime bound the thread to one of its places before main(). */
#ifndef PERF_CPUMASK_H
#define PERF_CPUMASK_H

#include <sched.h> /* cpu_set_t: its users define _GNU_SOURCE first */

/* The calling thread's affinity mask into *set, widened to the union of
 * the OpenMP runtime's places when that runtime (libgomp, LLVM's libomp:
 * found with dlsym, perfgate does not link one) has bound the thread to
 * one of them: OMP_PROC_BIND, OMP_PLACES or GOMP_CPU_AFFINITY make libgomp
 * bind the initial thread to its first place at load, before main(), so a
 * perftest's own mask is one CPU, and a worker started with it would run
 * every OpenMP thread there. Widened only while the mask is exactly that
 * place's CPUs (a mask set since, e.g. a --devices share, is kept).
 * Returns 0, or -1 (errno set) when the kernel cannot say. */
int perf__cpumask_get(cpu_set_t *set);

/* The CPUs of perf__cpumask_get (online CPUs when it fails), at least 1.
 * Never fails. */
int perf__cpumask_count(void);

#endif
