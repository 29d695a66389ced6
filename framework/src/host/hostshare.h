/* hostshare.h — the host's CPUs shared out among the perfgate runs on it. */
/* How many CPUs this process may use (affinity, cpu.max), the perfgate runs
 * on the host (a lock directory), and one run's share of threads. */
#ifndef PERF_HOSTSHARE_H
#define PERF_HOSTSHARE_H

#include <stddef.h>

/* The CPUs this process may run on: its affinity mask (perf__cpumask_get:
 * widened where OpenMP bound the thread to one place), capped by the
 * cgroup's cpu.max quota rounded down; at least 1. Never fails. */
int perf__hostshare_cpus(void);

/* One run's threads when k runs share cpus: floor(cpus / k), minus one CPU
 * kept for the runner when that leaves at least one; at least 1. Never
 * fails (k < 1 counts as 1). */
int perf__hostshare_share(int cpus, int k);

/* The lock directory: $PERF_LOCK_DIR, else /dev/shm/perfgate-UID, else
 * /tmp/perfgate-UID (when /dev/shm is missing). Never fails. */
const char *perf__hostshare_dir(char *buf, size_t len);

/* Registers this process as a live run: a file "run-PID-N" in the lock
 * directory (made 0700 when missing) holding an exclusive flock and the
 * run's CPU list, until perf__hostshare_unregister or the process ends.
 * Returns its descriptor, or -1 with the reason in err[len] (a directory
 * that cannot be made or written, or one owned by another user). */
int perf__hostshare_register(char *err, size_t len);

/* Removes the run's file and releases its lock. Never fails (-1: none). */
void perf__hostshare_unregister(int fd);

/* The live runs whose CPUs overlap this process's, this one's run counted
 * once whether or not it registered (the caller, or its parent, the
 * supervisor of a worker); *same_cgroup: those in this process's cgroup
 * (which share its cpu.max quota), counted the same way. Files whose lock
 * no process holds are stale: removed, not counted. At least 1; 1 when the
 * directory cannot be read. Never fails. */
int perf__hostshare_runs(int *same_cgroup);

/* perf_host_threads(): a run's CPUs are floor(affinity CPUs / runs that
 * overlap them), capped by floor(cpu.max quota / runs in its cgroup); less
 * the runner's one (perf__hostshare_share); capped by OMP_NUM_THREADS when
 * that is set to a positive number. Never fails. */
int perf__hostshare_threads(void);

/* "CPUs: N (...); perfgate runs sharing them: K (lock directory D);
 * perf_host_threads(): T" for --verbose. Never fails (truncates). */
void perf__hostshare_describe(char *buf, size_t len);

#endif
