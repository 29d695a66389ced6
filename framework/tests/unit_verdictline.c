/* unit_verdictline.c — verdict lines rendered from claim records: heads, words, plain kinds. */
#include <math.h>
#include <string.h>

#include "record/verdictline.h"
#include "selftest.h"

/* 1 when s begins with prefix. */
static int starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

/* A FASTER record with message msg and outcome o. */
static perf__claimrec faster(const char *msg, perf_outcome o, const char *why)
{
  perf__claimrec r = {.message = (char *)msg, .outcome = o, .kind = PERF__CLAIMREC_FASTER};
  r.ratio = (perf__claimrec_ratio){.kind = "FASTER", .clock = "wall", .threshold = 2,
                                   .ratio = 3, .interval = {2.5, 3.5}, .confidence = 0.99,
                                   .rounds = 12, .looks = 1, .seconds = 0.5,
                                   .why = (char *)why, .timing = "wall clock, medians"};
  r.ratio.a = (perf__claimrec_workload){.name = "a", .median_s = 1e-6};
  r.ratio.b = (perf__claimrec_workload){.name = "b", .median_s = 3e-6};
  return r;
}

/* The head is what precedes the message's last ": WORD", whatever a name
 * in it holds; the INCONCLUSIVE word names its cause. */
ST_TEST(verdictline_ratio_head_and_word)
{
  char line[2000];
  perf__claimrec r = faster("FASTER(attn: PASS: fp16, ref, 2) at t.py:9: PASS", PERF_OUTCOME_PASS,
                            NULL);
  ST_CHECK(perf__verdictline_render(&r, line, sizeof line));
  ST_CHECKF(starts(line, "FASTER(attn: PASS: fp16, ref, 2) at t.py:9: PASS: a 1.000 us vs b "),
            "%s", line);
  ST_CHECKF(strstr(line, "speedup 3.000x, 99.00% CI [2.500, 3.500], needs >= 2.000x; 12 ABBA "
                         "rounds, 1 look, 0.50 s wall") != NULL, "%s", line);
  r = faster("FASTER(a, b, 2) at t.c:3: INCONCLUSIVE", PERF_OUTCOME_INCONCLUSIVE, "the budget ran out");
  ST_CHECK(perf__verdictline_render(&r, line, sizeof line));
  ST_CHECKF(starts(line, "FASTER(a, b, 2) at t.c:3: INCONCLUSIVE (the budget ran out): a "), "%s",
            line);
  r = faster("FASTER(a, b, 2) at t.c:3: PASS, or not", PERF_OUTCOME_PASS, NULL);
  ST_CHECK(!perf__verdictline_render(&r, line, sizeof line)); /* not its message's form */
}

/* TRUE and NEAR say their message when they do not hold; a plain record
 * (a message and an outcome) says its message; a kept one is not
 * rendered. */
ST_TEST(verdictline_plain_kinds)
{
  char line[400] = "untouched";
  perf__claimrec t = {.message = "TRUE(x) at t.c:1 is false", .outcome = PERF_OUTCOME_FAIL,
                      .kind = PERF__CLAIMREC_TRUE};
  ST_CHECK(perf__verdictline_render(&t, line, sizeof line));
  ST_STR(line, "TRUE(x) at t.c:1 is false");
  t.outcome = PERF_OUTCOME_PASS;
  strcpy(line, "untouched");
  ST_CHECK(!perf__verdictline_render(&t, line, sizeof line));
  ST_STR(line, "untouched");
  perf__claimrec b = {.message = "UNDER(w, 1) at t.c:2: PASS: median 2 us", .outcome = PERF_OUTCOME_PASS};
  ST_CHECK(perf__verdictline_render(&b, line, sizeof line));
  ST_STR(line, "UNDER(w, 1) at t.c:2: PASS: median 2 us");
  perf__claimrec k = faster("FASTER(a, b, 2) at t.c:3: PASS", PERF_OUTCOME_PASS, NULL);
  k.kept = 1;
  ST_CHECK(!perf__verdictline_render(&k, line, sizeof line));
}

/* A sync check's line from its count; its head survives a name with the
 * count's words in it. */
ST_TEST(verdictline_sync_check)
{
  char line[600];
  perf__claimrec r = {.message = "SYNCS(w: 1 host sync, 1) at t.c:4: 1 host sync per iteration",
                      .outcome = PERF_OUTCOME_PASS, .kind = PERF__CLAIMREC_SYNCS};
  r.syncs = (perf__claimrec_syncs){.got = "1", .wanted = 1, .iterations = 3, .pass_s = 0.01,
                                   .cupti_s = 0.009};
  ST_CHECK(perf__verdictline_render(&r, line, sizeof line));
  ST_STR(line, "SYNCS(w: 1 host sync, 1) at t.c:4: PASS: 1 host sync per iteration, wanted "
               "exactly 1; 3 iterations checked (CUPTI callbacks, runtime and driver APIs; pass "
               "10.00 ms wall, of which attaching and detaching CUPTI 9.00 ms)");
}

/* A BASELINE check's line from its members: the word's parenthesis, the
 * change against the noise and tolerance, the notes; the noise without
 * the baseline's runs; an update's RECORDED line; a shared GPU's. */
ST_TEST(verdictline_baseline_check_recorded_and_shared)
{
  char line[1200];
  perf__claimrec r = {.message = "BASELINE(w: PASS) at t.c:5: INCONCLUSIVE",
                      .outcome = PERF_OUTCOME_INCONCLUSIVE, .kind = PERF__CLAIMREC_BASELINE};
  r.baseline = (perf__claimrec_baseline){
      .now_s = 12e-6, .was_s = 10e-6, .timing = "events clock", .change = 0.2, .noise = 0.011,
      .between = 0.004, .runs = 5, .tolerance = 0.05, .samples = 16, .was_samples = 64,
      .beyond = 1, .why = "the host was busy: not decided", .notes = "; the host: load 3.1"};
  ST_CHECK(perf__verdictline_render(&r, line, sizeof line));
  ST_STR(line, "BASELINE(w: PASS) at t.c:5: INCONCLUSIVE (the host was busy: not decided): "
               "12.00 us vs baseline 10.00 us per iteration (events clock), +20.0% +-1.1% with "
               "the spread between the baseline's runs (0.40%, 5 runs), tolerance 5.0%, 16 "
               "samples (baseline 64), beyond tolerance and noise; the host: load 3.1");
  r.message = "BASELINE(w) at t.c:5: PASS", r.outcome = PERF_OUTCOME_PASS;
  r.baseline.between = -1, r.baseline.beyond = 0, r.baseline.why = NULL, r.baseline.notes = NULL;
  ST_CHECK(perf__verdictline_render(&r, line, sizeof line));
  ST_CHECKF(strstr(line, "at t.c:5: PASS: 12.00 us vs baseline") &&
                strstr(line, "+-1.1% (the baseline has no runs: within-process noise only), "
                             "tolerance 5.0%, 16 samples (baseline 64), within tolerance or "
                             "noise") && !strchr(strstr(line, "noise only"), ';'),
            "%s", line);
  r.message = "BASELINE(w) at t.c:5: PASS, or not";
  ST_CHECK(!perf__verdictline_render(&r, line, sizeof line)); /* not its message's form */
  r.message = "BASELINE(w) at t.c:5";
  r.baseline = (perf__claimrec_baseline){.recorded = 1, .now_s = 2e-6, .timing = "events clock",
                                         .samples = 1, .sm_mhz = 1980};
  ST_CHECK(perf__verdictline_render(&r, line, sizeof line));
  ST_STR(line, "BASELINE(w) at t.c:5: RECORDED: 2.000 us per iteration (events clock, median of "
               "1 sample, SM clock 1980 MHz)");
  r.message = "BASELINE(w) at t.c:5: INCONCLUSIVE (another process used the GPU, and it stayed)";
  r.outcome = PERF_OUTCOME_INCONCLUSIVE;
  r.baseline = (perf__claimrec_baseline){.shared = "during 3 samples of the measurement: pid 7"};
  ST_CHECK(perf__verdictline_render(&r, line, sizeof line));
  ST_STR(line, "BASELINE(w) at t.c:5: INCONCLUSIVE (another process used the GPU): during 3 "
               "samples of the measurement: pid 7");
}

/* How sampling ended, from the record's flags: the early look, a budget
 * stretched for the first look, both, or nothing unusual. */
ST_TEST(verdictline_notes_the_early_look_and_a_stretched_budget)
{
  char line[2000];
  perf__claimrec r = faster("FASTER(a, b, 2) at t.c:3: PASS", PERF_OUTCOME_PASS, NULL);
  r.ratio.noise = (perf__claimrec_noise){.set = 1, .early_look = 1};
  ST_CHECK(perf__verdictline_render(&r, line, sizeof line));
  ST_CHECKF(strstr(line, "0.50 s wall (rounds too slow for the first look; early look: every "
                         "round's ratio and the bootstrap)") != NULL, "%s", line);
  r.ratio.budget_stretched = 1;
  ST_CHECK(perf__verdictline_render(&r, line, sizeof line));
  ST_CHECKF(strstr(line, " (budget stretched: rounds too slow for the first look; early look: "
                         "every round's ratio and the bootstrap)") != NULL, "%s", line);
  r.ratio.noise.early_look = 0;
  ST_CHECK(perf__verdictline_render(&r, line, sizeof line));
  ST_CHECKF(strstr(line, "0.50 s wall (budget stretched: rounds too slow for the first look)"),
            "%s", line);
  r.ratio.budget_stretched = 0, r.ratio.noise.set = 0;
  ST_CHECK(perf__verdictline_render(&r, line, sizeof line));
  ST_CHECKF(!strchr(strstr(line, "s wall"), '('), "%s", line);
}
