/* hostload.h — a snapshot of the host's load as /proc, the cgroup and cpufreq show it. */
/* It is cheap to take, in either process. */
#ifndef PERF_HOSTLOAD_H
#define PERF_HOSTLOAD_H

#include <stddef.h>
#include <sys/types.h>

/* Threads of a process whose CPU time a snapshot keeps. */
#define PERF__HOSTLOAD_TASKS 256
/* CPUs whose own busy and total time a snapshot keeps (cpu0..cpu255). */
#define PERF__HOSTLOAD_CPUS 256

/* Test hooks (documented in docs/noise.md): PERF_PROC_ROOT replaces /proc,
 * PERF_CGROUP_ROOT the cgroup v2 mount (/sys/fs/cgroup), PERF_SYS_ROOT
 * /sys for cpufreq. Each part of a snapshot is 0 with its *_ok flag 0 when
 * its file cannot be read. */
typedef struct perf__hostload {
  double t;                              /* host monotonic clock, seconds */
  double tick_s;                         /* one clock tick of the times below */
  int stat_ok;                           /* /proc/stat read */
  unsigned long long busy, total, steal; /* all CPUs, clock ticks */
  int online;                            /* CPUs /proc/stat lists */
  int ncpu;                              /* cpu[] entries read: 1 + the highest
                                            cpuN line below PERF__HOSTLOAD_CPUS */
  struct { unsigned long long busy, total; } cpu[PERF__HOSTLOAD_CPUS];
                                         /* each CPU's, clock ticks */
  int load_ok;                           /* /proc/loadavg read */
  double load1;                          /* 1-minute load average */
  int runnable;                          /* runnable tasks now (field 4) */
  int proc_ok;                           /* the process's stat read */
  double proc_cpu_s;                     /* its user + system time, seconds */
  double children_cpu_s;                 /* that of its children it has reaped */
  int last_cpu;                          /* the CPU its main thread last ran on
                                            (field 39); -1 unknown */
  int threads;                           /* its threads */
  int ntasks;                            /* threads read below (the first
                                            PERF__HOSTLOAD_TASKS) */
  struct { long tid; unsigned long long ticks; } task[PERF__HOSTLOAD_TASKS];
                                         /* each one's user + system time,
                                            clock ticks */
  int cg_ok;                             /* the cgroup's cpu.stat read */
  long long nr_throttled, throttled_usec;
  double quota_cpus;                     /* cpu.max quota / period; 0 none */
  double mhz, max_mhz;                   /* mean current and highest max over
                                            the CPUs this process may use;
                                            0 unknown */
} perf__hostload;

/* A snapshot for process pid (0: this one). Never fails: what cannot be
 * read is left 0 with its flag 0. */
void perf__hostload_read(perf__hostload *h, pid_t pid);

/* The path of a /proc file under PERF_PROC_ROOT ("/proc" by default):
 * rel is "stat", "self/cgroup"... Never fails (truncates to len). */
const char *perf__hostload_proc(const char *rel, char *buf, size_t len);

/* This process's cgroup v2 directory (PERF_CGROUP_ROOT or /sys/fs/cgroup,
 * then the path of /proc/self/cgroup's "0::" line); -1 when there is none
 * to read. */
int perf__hostload_cgroup_dir(char *buf, size_t len);

/* The CPUs the cgroup's cpu.max allows (quota / period, the smallest over
 * the cgroup and its parents up to the mount); 0 when none is set ("max")
 * or none can be read. Never fails. */
double perf__hostload_quota(void);

/* The SMT siblings of cpu (its core's other hardware threads, from
 * /sys/.../cpuN/topology/thread_siblings_list under PERF_SYS_ROOT) into
 * out[max], cpu itself left out. Returns their count; 0 when there are
 * none or the list cannot be read. Never fails. */
int perf__hostload_siblings(int cpu, int *out, int max);

/* The cpufreq governor of the first CPU this process may use
 * ("performance", "powersave"...) into buf[len]. Returns 0, or -1 when it
 * cannot be read (no cpufreq: a VM, a container without /sys). */
int perf__hostload_governor(char *buf, size_t len);

#endif
