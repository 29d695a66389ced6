/* unit_crossover.c — the crossover decision and estimate on made-up sweeps. */
/* Sweeps bracketed, contrary, at the range's ends, in any order, with ties. */
#include <math.h>
#include <string.h>

#include "selftest.h"
#include "worker/claim/crossover.h"
#include "stats/stats.h"

/* Points at 16, 32, ..., with the given sides and speedups. */
static void decide(const int *side, const double *speedup, size_t n, double lo, double hi,
                   perf__crossover_decision *d)
{
  perf__crossover_point p[16];
  for (size_t i = 0; i < n; i++) p[i] = (perf__crossover_point){16.0 * (1 << i), side[i], speedup[i]};
  perf__crossover_decide(p, n, &(perf__crossover_ask){lo, hi, "a", "b", "n"}, d);
}

ST_TEST(crossover_passes_when_the_turn_is_bracketed_inside_the_range)
{
  perf__crossover_decision d;
  int side[] = {-1, -1, 0, 1, 1};            /* 16 32 64 128 256 */
  double sp[] = {0.25, 0.5, 1.0, 2.0, 4.0};  /* speedup of a over b */
  decide(side, sp, 5, 32, 128, &d);
  ST_EQ(d.verdict, PERF_OUTCOME_PASS);
  ST_NEAR(d.slow_max, 32, 0);
  ST_NEAR(d.fast_min, 128, 0);
  ST_NEAR(d.estimate, 64, 1e-9); /* ratio exactly 1 at 64 */
  ST_CHECK(strstr(d.why, "up to n=32 and faster from n=128") != NULL);
  /* The same points do not place the turn inside a narrower range. */
  decide(side, sp, 5, 48, 128, &d);
  ST_EQ(d.verdict, PERF_OUTCOME_INCONCLUSIVE);
  decide(side, sp, 5, 32, 100, &d);
  ST_EQ(d.verdict, PERF_OUTCOME_INCONCLUSIVE);
}

ST_TEST(crossover_estimate_interpolates_in_log_log)
{
  perf__crossover_decision d;
  int side[] = {-1, 1};
  double sp[] = {0.5, 2.0}; /* at 16 and 32: log ratio -1 .. +1, crossing halfway */
  decide(side, sp, 2, 16, 32, &d);
  ST_EQ(d.verdict, PERF_OUTCOME_PASS);
  ST_NEAR(d.estimate, 16 * sqrt(2.0), 1e-9);
  double sp2[] = {0.5, 8.0}; /* log2 -1 .. +3: a quarter of the way */
  decide(side, sp2, 2, 16, 32, &d);
  ST_NEAR(d.estimate, 16 * pow(2.0, 0.25), 1e-9);
}

ST_TEST(crossover_fails_on_contrary_points)
{
  perf__crossover_decision d;
  int below[] = {-1, 1, 1, 1};
  double sp[] = {0.5, 2, 3, 4};
  decide(below, sp, 4, 64, 128, &d); /* faster at 32 < 64 */
  ST_EQ(d.verdict, PERF_OUTCOME_FAIL);
  ST_CHECK(strstr(d.why, "already faster at n=32, so it turns below 64") != NULL);
  int above[] = {-1, -1, -1, 1};
  double sp2[] = {0.2, 0.3, 0.5, 2};
  decide(above, sp2, 4, 16, 32, &d); /* slower at 32 = hi */
  ST_EQ(d.verdict, PERF_OUTCOME_FAIL);
  ST_CHECK(strstr(d.why, "still slower at n=32, so it turns above 32") != NULL);
  int twice[] = {-1, 1, -1, 1};
  double sp3[] = {0.5, 2, 0.5, 2};
  decide(twice, sp3, 4, 16, 128, &d);
  ST_EQ(d.verdict, PERF_OUTCOME_FAIL);
  ST_CHECK(strstr(d.why, "turns more than once") != NULL);
  int never[] = {-1, -1, -1};
  double sp4[] = {0.5, 0.5, 0.5};
  decide(never, sp4, 3, 16, 256, &d); /* slower up to 64 < 256: unknown */
  ST_EQ(d.verdict, PERF_OUTCOME_INCONCLUSIVE);
  ST_CHECK(isnan(d.estimate) && isnan(d.fast_min));
}

ST_TEST(crossover_at_the_range_ends_and_its_open_reasons)
{
  perf__crossover_decision d;
  int side[] = {-1, -1, 1, 1};             /* 16 32 64 128 */
  double sp[] = {0.25, 0.5, 2, 4};
  decide(side, sp, 4, 16, 32, &d);         /* slower at 32 = hi: turns above 32 */
  ST_EQ(d.verdict, PERF_OUTCOME_FAIL);
  decide(side, sp, 4, 64, 128, &d);        /* faster at 64 = lo: turns below 64 */
  ST_EQ(d.verdict, PERF_OUTCOME_FAIL);
  decide(side, sp, 4, 32, 64, &d);
  ST_EQ(d.verdict, PERF_OUTCOME_PASS);
  int open[] = {0, 0, 1, 1};
  decide(open, sp, 4, 16, 128, &d);
  ST_EQ(d.verdict, PERF_OUTCOME_INCONCLUSIVE);
  ST_CHECKF(strstr(d.why, "a turns before n=64 (no point shows it slower)") != NULL, "%s", d.why);
  int none[] = {0};
  decide(none, sp, 1, 16, 128, &d);
  ST_CHECKF(strstr(d.why, "a turns nowhere decided") != NULL, "%s", d.why);
  int slow[] = {-1, 0};
  decide(slow, sp, 2, 8, 128, &d);
  ST_CHECKF(strstr(d.why, "a turns after n=16 (no point shows it faster)") != NULL, "%s", d.why);
}

ST_TEST(crossover_sorts_points_given_in_any_order)
{
  perf__crossover_point p[] = {{256, 1, 4}, {16, -1, 0.25}, {64, 0, 1.2}, {32, -1, 0.5}};
  perf__crossover_decision d;
  perf__crossover_decide(p, 4, &(perf__crossover_ask){16, 256, "a", "b", "n"}, &d);
  ST_EQ(d.verdict, PERF_OUTCOME_PASS);
  ST_NEAR(d.slow_max, 32, 0);
  ST_NEAR(d.fast_min, 256, 0);
  ST_CHECK(d.estimate > 32 && d.estimate < 64); /* 0.5 at 32 -> 1.2 at 64 */
}

/* Ties: a point within the margin is neither side, so it cannot contradict
 * the claim nor place the turn; only sides beyond the margin do. */
ST_TEST(crossover_tied_points_neither_contradict_nor_bracket)
{
  perf__crossover_decision d;
  enum { S = PERF__SIDE_SLOWER, F = PERF__SIDE_FASTER, T = PERF__SIDE_TIED, U = PERF__SIDE_UNDECIDED };
  /* the flip: 1.044x at 64 was once "faster", then slower at 128 */
  int flip[] = {S, S, T, S, F, F};          /* 16 32 64 128 256 512 */
  double sp[] = {0.2, 0.5, 1.044, 0.9, 1.5, 3};
  decide(flip, sp, 6, 32, 512, &d);
  ST_EQ(d.verdict, PERF_OUTCOME_PASS);
  ST_NEAR(d.slow_max, 128, 0);
  ST_NEAR(d.fast_min, 256, 0);
  int as_before[] = {S, S, F, S, F, F};     /* the same with the tie taken as a side */
  decide(as_before, sp, 6, 32, 512, &d);
  ST_EQ(d.verdict, PERF_OUTCOME_FAIL);
  /* ties at the range ends are allowed; a tie never brackets */
  int ends[] = {T, S, F, T};                /* 16 32 64 128 */
  double sp2[] = {1.01, 0.8, 1.3, 1.02};
  decide(ends, sp2, 4, 16, 128, &d);
  ST_EQ(d.verdict, PERF_OUTCOME_PASS);
  int only_ties[] = {S, T, T, T};
  double sp3[] = {0.5, 0.99, 1.0, 1.03};
  decide(only_ties, sp3, 4, 16, 128, &d);
  ST_EQ(d.verdict, PERF_OUTCOME_INCONCLUSIVE);
  ST_CHECK(isnan(d.fast_min));
  /* undecided points behave as ties */
  int open[] = {S, U, F};
  double sp4[] = {0.5, 1.06, 2};
  decide(open, sp4, 3, 16, 64, &d);
  ST_EQ(d.verdict, PERF_OUTCOME_PASS);
}
