/* hostcause.c — how the host interfered with a run, from two load snapshots, as one phrase. */
/* The phrase names the dominant cause with its numbers and its remedy. */
#include "host/hostcause.h"

#include <stdio.h>

#include "util/units.h"

/* A candidate cause: its weight (the share of the time or CPUs it took;
 * 0 when under its threshold) and its phrase. */
typedef struct cause {
  double weight;
  char text[400];
} cause;

/* The interval between the snapshots, seconds (at least 1 ms). */
static double span(const perf__hostload *a, const perf__hostload *b)
{
  double dt = b->t - a->t;
  return dt > 1e-3 ? dt : 1e-3;
}

/* The CPUs this process and its reaped children kept busy on average; 0
 * when unknown. */
static double own_cpus(const perf__hostload *a, const perf__hostload *b)
{
  return a->proc_ok && b->proc_ok ? (b->proc_cpu_s + b->children_cpu_s - a->proc_cpu_s -
                                     a->children_cpu_s) / span(a, b)
                                  : 0;
}

/* The host's busy share of all CPUs (0..1); 0 when unknown. */
static double busy_share(const perf__hostload *a, const perf__hostload *b)
{
  if (!a->stat_ok || !b->stat_ok || b->total <= a->total) return 0;
  return (double)(b->busy - a->busy) / (double)(b->total - a->total);
}

/* Throttled by the cgroup's quota 2 % of the time or more. */
static void throttled(const perf__hostload *a, const perf__hostload *b, cause *c)
{
  if (!a->cg_ok || !b->cg_ok) return;
  double ms = (double)(b->throttled_usec - a->throttled_usec) / 1000;
  double share = ms / 1000 / span(a, b);
  if (share < PERF__HOSTCAUSE_THROTTLED) return;
  c->weight = share;
  snprintf(c->text, sizeof c->text,
           "the cgroup's CPU quota (cpu.max: %.1f CPUs) throttled this run %lld %s, "
           "%.0f ms of %.1f s (cpu.stat): raise cpu.max, or size host threads with "
           "perf_host_threads(), which counts the quota",
           b->quota_cpus, b->nr_throttled - a->nr_throttled,
           perf__units_noun(b->nr_throttled - a->nr_throttled, "time", "times"), ms, span(a, b));
}

/* The hypervisor took 5 % of the CPUs' time or more. */
static void stolen(const perf__hostload *a, const perf__hostload *b, cause *c)
{
  if (!a->stat_ok || !b->stat_ok || b->total <= a->total) return;
  double share = (double)(b->steal - a->steal) / (double)(b->total - a->total);
  if (share < PERF__HOSTCAUSE_STEAL) return;
  c->weight = share;
  snprintf(c->text, sizeof c->text,
           "the hypervisor took %.0f %% of the CPUs' time (steal, /proc/stat): run on "
           "dedicated CPUs (a bare-metal or dedicated-vCPU runner)", 100 * share);
}

/* The process's threads that ran a tenth of the interval or more (and at
 * least 2 clock ticks) between a and b: a workload's team. */
static int busy_threads(const perf__hostload *a, const perf__hostload *b)
{
  double need = 0.1 * span(a, b) / b->tick_s;
  int n = 0;
  for (int i = 0; i < b->ntasks; i++) {
    unsigned long long before = 0;
    for (int j = 0; j < a->ntasks; j++)
      if (a->task[j].tid == b->task[i].tid) before = a->task[j].ticks;
    double ran = (double)(b->task[i].ticks - before);
    n += ran >= need && ran >= 2;
  }
  return n;
}

/* The run itself kept more threads busy than perf_host_threads() allows:
 * the runner's own threads had no CPU of their own. */
static void own_threads(const perf__hostload *a, const perf__hostload *b, int cpus,
                        int host_threads, cause *c)
{
  int n = busy_threads(a, b);
  double own = own_cpus(a, b);
  if (n <= host_threads) return;
  c->weight = own / cpus;
  snprintf(c->text, sizeof c->text,
           "the workload ran %d busy %s on %d %s (the worker used %.1f CPUs on average, %d %s "
           "in all) while the runner needs one: use perf_host_threads() (%d here) for its "
           "threads",
           n, perf__units_noun(n, "thread", "threads"), cpus, perf__units_noun(cpus, "CPU", "CPUs"),
           own, b->threads, perf__units_noun(b->threads, "thread", "threads"), host_threads);
}

/* See hostcause.h. */
double perf__hostcause_others(const perf__hostload *a, const perf__hostload *b)
{
  if (!a->stat_ok || !b->stat_ok || b->total <= a->total) return 0;
  double other = busy_share(a, b) * b->online - own_cpus(a, b);
  return other > 0 ? other : 0;
}

/* Other processes kept a quarter of the host's CPUs busy or more (and at
 * least one CPU's worth). */
static void others(const perf__hostload *a, const perf__hostload *b, cause *c)
{
  double busy = busy_share(a, b), other = perf__hostcause_others(a, b);
  if (other < 1 || other / b->online < PERF__HOSTCAUSE_OTHERS) return;
  c->weight = other / b->online;
  snprintf(c->text, sizeof c->text,
           "other processes kept the CPUs %.0f %% busy (%.1f of %d %s besides this run; "
           "load %.1f, %d runnable): run on a quiet runner or fewer jobs per host",
           100 * busy, other, b->online, perf__units_noun(b->online, "CPU", "CPUs"), b->load1,
           b->runnable);
}

/* The core the runner's thread last ran on was kept busy by others half
 * the time or more on its other hardware thread(s): the core's busy time
 * (all its threads) less this whole process's CPU time, over one CPU's
 * time (so that the run's own threads, on the sibling or moved there, are
 * never blamed). Weighted half: a busy sibling slows the runner's thread,
 * it does not take its CPU away. */
static void smt_sibling(const perf__hostload *a, const perf__hostload *b, cause *c)
{
  int sib[8], cpu = b->last_cpu, top = -1;
  if (cpu < 0 || cpu >= a->ncpu || cpu >= b->ncpu || !a->proc_ok || !b->proc_ok ||
      b->cpu[cpu].total <= a->cpu[cpu].total)
    return;
  int n = perf__hostload_siblings(cpu, sib, 8);
  double busy = (double)(b->cpu[cpu].busy - a->cpu[cpu].busy);
  for (int i = 0; i < n; i++) {
    int s = sib[i];
    if (s >= a->ncpu || s >= b->ncpu) continue;
    busy += (double)(b->cpu[s].busy - a->cpu[s].busy);
    if (top < 0) top = s;
  }
  double own = own_cpus(a, b) * span(a, b) / b->tick_s; /* ticks */
  double best = (busy - own) / (double)(b->cpu[cpu].total - a->cpu[cpu].total);
  if (top < 0 || best < PERF__HOSTCAUSE_SMT) return;
  c->weight = 0.5 * (best > 1 ? 1 : best);
  snprintf(c->text, sizeof c->text,
           "CPU %d, where the runner's thread last ran, shares its core with CPU %d, which "
           "other processes kept busy %.0f %% of the time (SMT): a busy sibling slows the runner "
           "without preempting it; keep that core's other thread idle (taskset, cpusets) or "
           "turn SMT off", cpu, top, 100 * (best > 1 ? 1 : best));
}

/* The CPUs ran under 70 % of their highest clock (weighted half: a clock
 * slows work, it does not take the CPU away). */
static void slow_clock(const perf__hostload *b, cause *c)
{
  if (b->mhz <= 0 || b->max_mhz <= 0 || b->mhz >= 0.7 * b->max_mhz) return;
  c->weight = 0.5 * (1 - b->mhz / b->max_mhz);
  snprintf(c->text, sizeof c->text,
           "the CPUs ran at %.0f MHz of %.0f MHz (cpufreq): use the performance governor",
           b->mhz, b->max_mhz);
}

/* See hostcause.h. */
int perf__hostcause_name(const perf__hostload *a, const perf__hostload *b, int cpus,
                         int host_threads, char *buf, size_t len)
{
  cause c[6] = {{0}};
  throttled(a, b, &c[0]);
  stolen(a, b, &c[1]);
  own_threads(a, b, cpus, host_threads, &c[2]);
  others(a, b, &c[3]);
  smt_sibling(a, b, &c[4]);
  slow_clock(b, &c[5]);
  int best = -1;
  for (int i = 0; i < 6; i++)
    if (c[i].weight > 0 && (best < 0 || c[i].weight > c[best].weight)) best = i;
  if (best >= 0) return snprintf(buf, len, "%s", c[best].text), 1;
  snprintf(buf, len, "no host cause seen: CPUs %.0f %% busy (this run %.1f of %d), load %.1f",
           100 * busy_share(a, b), own_cpus(a, b), cpus, b->load1);
  return 0;
}
