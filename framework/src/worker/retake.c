/* retake.c — which samples are kept: retaking those the host preempted or the GPU took while throttled. */
#include "worker/retake.h"

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
double perf__retake_rest_s(perf__retake *r)
{
  static const double rest[PERF__MAX_THROTTLE_STREAK] = {0.05, 0.15, 0.45};
  int i = r->throttle_streak - 1;
  if (i < 0 || i >= PERF__MAX_THROTTLE_STREAK) return 0;
  if (r->rested_s + rest[i] > PERF__MAX_REST_S) return 0;
  r->rested_s += rest[i];
  return rest[i];
}
