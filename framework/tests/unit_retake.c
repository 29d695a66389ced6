/* unit_retake.c — the retake decisions, without a GPU. */
/* Throttled and preempted samples discarded, a sustained throttle kept,
 * rests within a budget. */
#include "worker/sample/retake.h"
#include "selftest.h"

ST_TEST(retake_discards_throttled_samples_then_keeps_a_sustained_throttle)
{
  perf__retake r = {0};
  int kept = 0;
  /* A clean sample is kept. */
  ST_EQ(perf__retake_decide(&r, 0, 0), PERF__KEEP);
  /* Throttled: discarded PERF__MAX_THROTTLE_STREAK times in a row... */
  for (int i = 0; i < PERF__MAX_THROTTLE_STREAK; i++)
    ST_EQ(perf__retake_decide(&r, 0, 1), PERF__RETAKE);
  ST_EQ(r.throttled_discarded, PERF__MAX_THROTTLE_STREAK);
  /* ...then the throttle is sustained: kept and counted, as long as it lasts. */
  for (int i = 0; i < 5; i++) kept += perf__retake_decide(&r, 0, 1) == PERF__KEEP;
  ST_EQ(kept, 5);
  ST_EQ(r.throttled_kept, 5);
  /* A clean sample ends the streak: the next throttled one is discarded. */
  ST_EQ(perf__retake_decide(&r, 0, 0), PERF__KEEP);
  ST_EQ(perf__retake_decide(&r, 0, 1), PERF__RETAKE);
  ST_EQ(r.throttled_discarded, PERF__MAX_THROTTLE_STREAK + 1);
  ST_EQ(r.retaken, 0);
  ST_EQ(r.kept_disturbed, 0);
}

ST_TEST(retake_rests_before_each_throttled_retake_within_a_budget)
{
  perf__retake r = {0};
  long budget = PERF__MAX_REST_MS, rests[PERF__MAX_THROTTLE_STREAK];
  /* 50, 150, 450 ms before the three retakes of a throttled streak... */
  for (int i = 0; i < PERF__MAX_THROTTLE_STREAK; i++) {
    ST_EQ(perf__retake_decide(&r, 0, 1), PERF__RETAKE);
    rests[i] = perf__retake_rest_ms(&r, &budget);
  }
  ST_EQ(rests[0], 50);
  ST_EQ(rests[1], 150);
  ST_EQ(rests[2], 450);
  ST_EQ(budget, PERF__MAX_REST_MS - 650);
  /* ...none once the throttle is kept as sustained... */
  ST_EQ(perf__retake_decide(&r, 0, 1), PERF__KEEP);
  ST_EQ(perf__retake_rest_ms(&r, &budget), 0);
  /* ...and a new streak rests again only while the test's budget lasts:
   * 350 ms left, so 50 and 150 fit (exactly to 800 ms spent), 450 does not. */
  ST_EQ(perf__retake_decide(&r, 0, 0), PERF__KEEP);
  ST_EQ(perf__retake_decide(&r, 0, 1), PERF__RETAKE);
  ST_EQ(perf__retake_rest_ms(&r, &budget), 50);
  ST_EQ(perf__retake_decide(&r, 0, 1), PERF__RETAKE);
  ST_EQ(perf__retake_rest_ms(&r, &budget), 150);
  ST_EQ(perf__retake_decide(&r, 0, 1), PERF__RETAKE);
  ST_EQ(perf__retake_rest_ms(&r, &budget), 0);
  ST_EQ(r.rested_ms, 850);
  ST_EQ(budget, 150);
  /* a rest that lands exactly on the budget is taken */
  perf__retake q = {0};
  long exact = 50;
  ST_EQ(perf__retake_decide(&q, 0, 1), PERF__RETAKE);
  ST_EQ(perf__retake_rest_ms(&q, &exact), 50);
  ST_EQ(exact, 0);
}

ST_TEST(retake_preempted_samples_up_to_the_limit)
{
  perf__retake r = {0};
  for (int i = 0; i < PERF__MAX_RETAKES; i++)
    ST_EQ(perf__retake_decide(&r, 1, 0), PERF__RETAKE);
  ST_EQ(perf__retake_decide(&r, 1, 0), PERF__KEEP); /* gives up: kept, counted */
  ST_EQ(r.retaken, PERF__MAX_RETAKES);
  ST_EQ(r.kept_disturbed, 1);
  /* The retake allowance is per sample: the next one starts afresh. */
  ST_EQ(perf__retake_decide(&r, 1, 0), PERF__RETAKE);
  ST_EQ(perf__retake_decide(&r, 0, 0), PERF__KEEP);
  ST_EQ(r.kept_disturbed, 1);
  /* A throttled sample is not kept because preemption retakes ran out. */
  perf__retake t = {.tries = PERF__MAX_RETAKES};
  ST_EQ(perf__retake_decide(&t, 1, 1), PERF__RETAKE);
  ST_EQ(t.throttled_discarded, 1);
}
