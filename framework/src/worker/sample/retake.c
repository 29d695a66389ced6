/* retake.c — which samples are kept, and which are retaken. */
/* A sample is retaken when the host preempted it, the GPU was throttled, or
 * another process shared the GPU. */
#include "worker/sample/retake.h"

/* See retake.h. A throttled sample is judged first: it is never kept just
 * because the retakes for preemption ran out. */
int perf__retake_decide(perf__retake *r, int preempted, int throttled)
{
  if (throttled) {
    if (r->throttle_streak++ < PERF__MAX_THROTTLE_STREAK) {
      r->throttled_discarded++;
      return PERF__RETAKE;
    }
    r->throttled_kept++;
  } else
    r->throttle_streak = 0;
  if (preempted && r->tries < PERF__MAX_RETAKES) {
    r->tries++;
    r->retaken++;
    return PERF__RETAKE;
  }
  if (preempted) r->kept_disturbed++;
  r->tries = 0;
  return PERF__KEEP;
}

/* See retake.h. */
int perf__retake_shared(perf__retake *r, int shared, int can_wait)
{
  if (!shared) return PERF__KEEP;
  if (can_wait) {
    r->shared_retaken++;
    return PERF__RETAKE;
  }
  r->shared_kept++;
  return PERF__KEEP;
}

/* See retake.h. */
long perf__retake_rest_ms(perf__retake *r, long *budget_ms)
{
  static const long rest[PERF__MAX_THROTTLE_STREAK] = {50, 150, 450};
  int i = r->throttle_streak - 1;
  if (i < 0 || i >= PERF__MAX_THROTTLE_STREAK || rest[i] > *budget_ms) return 0;
  *budget_ms -= rest[i];
  r->rested_ms += rest[i];
  return rest[i];
}
