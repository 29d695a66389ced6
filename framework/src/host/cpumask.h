/* cpumask.h — the CPUs this run may use: the affinity mask, unless OpenMP bound the thread. */
#ifndef PERF_CPUMASK_H
#define PERF_CPUMASK_H

#include <sched.h> /* cpu_set_t: its users define _GNU_SOURCE first */

/* The calling thread's affinity mask into *set, widened to the union of
 * the OpenMP runtime's places while the mask is exactly the place that
 * runtime bound the process's first thread to. OMP_PROC_BIND, OMP_PLACES
 * or GOMP_CPU_AFFINITY make libgomp bind the initial thread to its first
 * place when it loads, before main(), so a perftest's own mask is one CPU,
 * and a worker started with it would run every OpenMP thread there. The
 * runtime is found with dlsym in the global scope (perfgate does not link
 * one; one loaded RTLD_LOCAL, as Python loads extensions, is not seen) and
 * asked once, on the first call (omp_get_place_num binds a thread that
 * libgomp did not bind yet: make that first call from the main thread, as
 * perf_main does). Not widened after perf__cpumask_set (a --devices share),
 * nor where binding is off. Places from GOMP_CPU_AFFINITY are taken as
 * given (libgomp does not check them against the starting mask either).
 * Returns 0, or -1 (errno set) when the kernel cannot say. */
int perf__cpumask_get(cpu_set_t *set);

/* Sets this process's mask to *set (its calling thread's, inherited by
 * the processes it starts) and keeps perf__cpumask_get from widening it
 * from then on. Returns 0, or -1 with errno (the mask is unchanged). */
int perf__cpumask_set(const cpu_set_t *set);

/* The CPUs of perf__cpumask_get (online CPUs when it fails), at least 1.
 * Never fails. */
int perf__cpumask_count(void);

#endif
