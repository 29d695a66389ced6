/* retake.h — which samples are kept, and which are retaken. */
/* A sample is retaken when the host preempted it, the GPU was throttled, or
 * another process shared the GPU. */
#ifndef PERF_RETAKE_H
#define PERF_RETAKE_H

/* Retakes of one sample before a preempted one is kept anyway. */
#define PERF__MAX_RETAKES 20
/* Throttled samples in a row that are discarded; after that the GPU is taken
 * to be throttled for good and throttled samples are kept (and counted)
 * until a clean one comes, so a power-capped workload still gets measured. */
#define PERF__MAX_THROTTLE_STREAK 3

/* Idle time before retaking throttled samples, per test (its workloads and
 * sweep points together), in ms: a power cap that earlier load left behind
 * lifts while the GPU idles; one the workload's own load causes comes back,
 * and then the streak rule keeps it. */
#define PERF__MAX_REST_MS 1000L

/* Counts for one workload; zero-initialise. */
typedef struct perf__retake {
  int tries;                /* retakes of the sample being taken */
  int throttle_streak;      /* throttled samples in a row */
  long retaken;             /* discarded: the host preempted the thread */
  long kept_disturbed;      /* kept although preempted on every retake */
  long throttled_discarded; /* discarded: the GPU was throttled */
  long throttled_kept;      /* kept although throttled (sustained) */
  long rested_ms;           /* idled before retakes of throttled samples */
  long shared_retaken;      /* discarded: another process used the GPU */
  long shared_kept;         /* kept although shared: the wait ran out */
  long shared_waited_ms;    /* idled waiting for the other process to leave */
} perf__retake;

enum { PERF__KEEP = 0, PERF__RETAKE = 1 };

/* Decides about the sample just taken: preempted = the thread was switched
 * out involuntarily during it; throttled = the GPU watch saw a throttle
 * reason after it. Returns PERF__RETAKE (sample discarded, counted) or
 * PERF__KEEP (counted when kept despite a disturbance). Never fails. */
int perf__retake_decide(perf__retake *r, int preempted, int throttled);

/* Decides about a sample another process may have used the GPU during
 * (shared: the co-tenant check says so, cotenant.h; can_wait: the test's
 * time to wait for it to leave is not spent). Returns PERF__RETAKE (the
 * sample is discarded and counted: wait, then retake) or PERF__KEEP
 * (counted when kept although shared; such a sample never decides a claim,
 * compare.c). Judged before perf__retake_decide. Never fails. */
int perf__retake_shared(perf__retake *r, int shared, int can_wait);

/* After perf__retake_decide discarded a throttled sample: how long to idle
 * before the retake, in ms: 50, 150, then 450 for the first, second and
 * third discard in a row, when that fits in *budget_ms (the test's idle
 * time left, reduced by it); 0 otherwise. Counted in r->rested_ms. Never
 * fails. */
long perf__retake_rest_ms(perf__retake *r, long *budget_ms);

#endif
