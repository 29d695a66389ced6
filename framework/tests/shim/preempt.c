/* preempt.c — an LD_PRELOAD shim whose fake context switches preempt samples on purpose. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* PERF_FAKE_PREEMPT=N: of each N + 1 sample attempts, the first N are
 * preempted and the last is not; PERF_FAKE_PREEMPT=always: every attempt
 * is. The worker reads the process's involuntary switches before and after
 * each attempt (worker/sample/workload.c), so attempt k is reads 2k and 2k + 1,
 * and it is preempted when the count moved between them. The count this
 * shim returns moves only where the pattern says: the machine's real
 * preemptions are hidden, so the counts a test sees are exact under any
 * load. Only RUSAGE_SELF (every thread of the process, as an OpenMP
 * helper's preemptions would count) is changed; RUSAGE_THREAD and
 * RUSAGE_CHILDREN are the kernel's. Without the variable, or with a value
 * that is neither, getrusage is untouched. */

static atomic_long reads;   /* RUSAGE_SELF reads so far */
static atomic_long switches; /* the injected involuntary switches so far */

/* Whether sample attempt k is preempted under pattern p; -1 when p is not
 * a pattern. */
static int preempted(const char *p, long k)
{
  if (!strcmp(p, "always")) return 1;
  char *end;
  long n = strtol(p, &end, 10);
  if (!*p || *end || n < 0) return -1;
  return k % (n + 1) < n;
}

int getrusage(__rusage_who_t who, struct rusage *usage)
{
  static int (*real)(__rusage_who_t, struct rusage *);
  if (!real) real = (int (*)(__rusage_who_t, struct rusage *))dlsym(RTLD_NEXT, "getrusage");
  if (!real) return -1;
  int rc = real(who, usage);
  const char *p = getenv("PERF_FAKE_PREEMPT");
  if (rc || who != RUSAGE_SELF || !p) return rc;
  long r = atomic_fetch_add(&reads, 1);
  int hit = preempted(p, r / 2);
  if (hit < 0) return rc;
  if (r % 2 == 1 && hit) atomic_fetch_add(&switches, 1);
  usage->ru_nivcsw = atomic_load(&switches);
  return rc;
}
