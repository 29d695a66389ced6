/* cpumask.c — the CPUs this run may use: the affinity mask, unless OpenMP bound the thread. */
/* An OpenMP runtime can bind the thread to one of its places before main(). */
#define _GNU_SOURCE
#include "host/cpumask.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

/* The OpenMP 4.5 binding and place queries, when a runtime has them. */
typedef struct omp_calls {
  int (*proc_bind)(void); /* omp_proc_bind_t: 0 is omp_proc_bind_false */
  int (*num_places)(void);
  int (*place_num)(void);
  int (*place_num_procs)(int);
  void (*place_proc_ids)(int, int *);
} omp_calls;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static cpu_set_t bound, widened; /* bound empty: nothing to widen */
static atomic_int fixed;         /* perf__cpumask_set ran */

/* Looks the calls up; 0 when all are there. */
static int omp_lookup(omp_calls *o)
{
  *(void **)&o->proc_bind = dlsym(RTLD_DEFAULT, "omp_get_proc_bind");
  *(void **)&o->num_places = dlsym(RTLD_DEFAULT, "omp_get_num_places");
  *(void **)&o->place_num = dlsym(RTLD_DEFAULT, "omp_get_place_num");
  *(void **)&o->place_num_procs = dlsym(RTLD_DEFAULT, "omp_get_place_num_procs");
  *(void **)&o->place_proc_ids = dlsym(RTLD_DEFAULT, "omp_get_place_proc_ids");
  return o->proc_bind && o->num_places && o->place_num && o->place_num_procs &&
                 o->place_proc_ids
             ? 0
             : -1;
}

/* Adds place p's CPUs to *set. Returns their count (0: an odd place,
 * nothing added). */
static int add_place(const omp_calls *o, int p, cpu_set_t *set)
{
  int n = o->place_num_procs(p), ids[CPU_SETSIZE];
  if (n <= 0 || n > CPU_SETSIZE) return 0;
  o->place_proc_ids(p, ids);
  for (int i = 0; i < n; i++)
    if (ids[i] >= 0 && ids[i] < CPU_SETSIZE) CPU_SET(ids[i], set);
  return n;
}

/* Once per process: the place the runtime bound this thread to (bound)
 * when the mask is exactly it, and the mask widened to every place.
 * Leaves bound empty otherwise. Never fails. */
static void decide(void)
{
  omp_calls o;
  cpu_set_t now;
  CPU_ZERO(&bound);
  if (sched_getaffinity(0, sizeof now, &now) || omp_lookup(&o) || !o.proc_bind()) return;
  int places = o.num_places(), mine = o.place_num();
  if (places <= 0 || mine < 0 || mine >= places) return;
  cpu_set_t place;
  CPU_ZERO(&place);
  if (!add_place(&o, mine, &place) || !CPU_EQUAL(&place, &now)) return;
  widened = now;
  for (int p = 0; p < places; p++) add_place(&o, p, &widened);
  bound = place;
}

/* See cpumask.h. */
int perf__cpumask_get(cpu_set_t *set)
{
  if (sched_getaffinity(0, sizeof *set, set)) return -1;
  if (atomic_load(&fixed)) return 0;
  pthread_once(&once, decide);
  if (CPU_COUNT(&bound) && CPU_EQUAL(&bound, set)) *set = widened;
  return 0;
}

/* See cpumask.h. */
int perf__cpumask_set(const cpu_set_t *set)
{
  if (sched_setaffinity(0, sizeof *set, set)) return -1;
  atomic_store(&fixed, 1);
  return 0;
}

/* See cpumask.h. */
int perf__cpumask_count(void)
{
  cpu_set_t set;
  int n = perf__cpumask_get(&set) ? (int)sysconf(_SC_NPROCESSORS_ONLN) : CPU_COUNT(&set);
  return n > 1 ? n : 1;
}
