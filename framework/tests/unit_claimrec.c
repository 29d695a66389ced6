/* unit_claimrec.c — claim records: exact JSON, round trips of every kind, copies, rejects. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/claimrec.h"
#include "selftest.h"

/* The measurement members as compare.c's measurement_json writes them for
 * ratio() below, after "kind" (a watched workload a, an unwatched b, a
 * sweep point). */
#define MEASURED                                                                               \
  ", \"clock\": \"host\", \"threshold\": 2, \"ratio\": 2.5, \"interval\": [2.25, 2.75], "      \
  "\"confidence\": 0.94999999999999996, \"rounds\": 12, \"looks\": 2, "                         \
  "\"budget_stretched\": false, \"seconds\": 0.5, "                                             \
  "\"a\": {\"name\": \"fast\", \"median_s\": 0.001, "                                           \
  "\"median_interval_s\": [0.00089999999999999998, null], "                                     \
  "\"median_confidence\": 0.94999999999999996, \"mad_s\": 1.0000000000000001e-05, "             \
  "\"cold_start_s\": 0.25, \"iterations_per_sample\": 100, "                                    \
  "\"samples_s\": [0.001, 0.0011000000000000001], \"waits_for\": \"device\", "                  \
  "\"gpu_work_checked\": true, \"undeclared_streams\": false, "                                 \
  "\"gpu_work\": \"1 kernel on stream 0\", \"sm_clock_mhz\": [1980, null], "                    \
  "\"throttled_discarded\": 1, \"throttled_kept\": 0, \"throttle_reasons\": \"sw_power_cap\"}, " \
  "\"b\": {\"name\": \"slow\", \"median_s\": 0.0025000000000000001, "                           \
  "\"median_interval_s\": [0.0023999999999999998, 0.0025999999999999999], "                     \
  "\"median_confidence\": 0.94999999999999996, \"mad_s\": 1.0000000000000001e-05, "             \
  "\"cold_start_s\": 0.25, \"iterations_per_sample\": 40, "                                     \
  "\"samples_s\": [0.0025000000000000001, 0.0027000000000000001], \"waits_for\": \"nothing\", " \
  "\"gpu_work_checked\": false, \"undeclared_streams\": true, "                                 \
  "\"gpu_work\": \"no \\\"CUPTI\\\"\\n(shim)\"}, "                                              \
  "\"sweep\": {\"param\": \"n\", \"value\": 64, \"point\": 2, \"points\": 5}"

static const char faster_text[] =
    "{\"message\": \"FASTER(fast, slow, 2) at t.c:9 [n=64]: PASS\", \"outcome\": \"PASS\", "
    "\"kind\": \"FASTER\"" MEASURED "}";

static const char crossover_text[] =
    "{\"message\": \"CROSSOVER(fast, slow, n, 16, 256) at t.c:20: PASS: it turns\", "
    "\"outcome\": \"PASS\", \"kind\": \"CROSSOVER\", \"clock\": \"host\", \"param\": \"n\", "
    "\"a_name\": \"fast\", \"b_name\": \"slow\", \"tie\": 0.050000000000000003, "
    "\"range\": [16, 256], \"bracket\": [32, 64], \"estimate\": null, \"seconds\": 1.25, "
    "\"points\": [{\"x\": 32, \"side\": \"slower\"}, "
    "{\"x\": 64, \"side\": \"faster\", \"kind\": \"CROSSOVER_POINT\"" MEASURED "}]}";

static char *dup(const char *s) { return strdup(s); }

/* A workload as compare.c measures one; watched with two SM clocks. */
static perf__claimrec_workload workload(const char *name, double med, double lo, double hi,
                                        long batch, const double *s, int watched)
{
  perf__claimrec_workload w = {.name = dup(name), .median_s = med, .median_interval_s = {lo, hi},
                               .median_confidence = 1 - 0.05, .mad_s = 1e-5, .cold_start_s = 0.25,
                               .iterations_per_sample = batch, .nsamples = 2};
  w.samples_s = malloc(2 * sizeof *w.samples_s);
  if (w.samples_s) memcpy(w.samples_s, s, 2 * sizeof *s);
  w.waits_for = dup(watched ? "device" : "nothing");
  w.gpu_work_checked = watched;
  w.undeclared_streams = !watched;
  w.gpu_work = dup(watched ? "1 kernel on stream 0" : "no \"CUPTI\"\n(shim)");
  if (!watched) return w;
  w.watched = 1;
  w.sm_clock_mhz = calloc(2, sizeof *w.sm_clock_mhz);
  if (w.sm_clock_mhz) w.sm_clock_mhz[0] = 1980; /* the second unknown: null */
  w.throttled_discarded = 1;
  w.throttle_reasons = dup("sw_power_cap");
  return w;
}

/* The measurement MEASURED spells out; kind NULL (the writer's default). */
static perf__claimrec_ratio ratio(void)
{
  static const double sa[] = {0.001, 0.0011}, sb[] = {0.0025, 0.0027};
  perf__claimrec_ratio m = {.clock = dup("host"), .threshold = 2, .ratio = 2.5,
                            .interval = {2.25, 2.75}, .confidence = 1 - 0.05, .rounds = 12,
                            .looks = 2, .seconds = 0.5};
  m.a = workload("fast", 0.001, 0.0009, NAN, 100, sa, 1);
  m.b = workload("slow", 0.0025, 0.0024, 0.0026, 40, sb, 0);
  m.sweep = (perf__claimrec_sweep){.set = 1, .param = dup("n"), .value = 64, .point = 2,
                                   .points = 5};
  return m;
}

static perf__claimrec faster_record(void)
{
  return (perf__claimrec){.message = dup("FASTER(fast, slow, 2) at t.c:9 [n=64]: PASS"),
                          .outcome = PERF_OUTCOME_PASS, .kind = PERF__CLAIMREC_FASTER,
                          .ratio = ratio()};
}

static perf__claimrec crossover_record(void)
{
  perf__claimrec r = {.message = dup("CROSSOVER(fast, slow, n, 16, 256) at t.c:20: PASS: it turns"),
                      .outcome = PERF_OUTCOME_PASS, .kind = PERF__CLAIMREC_CROSSOVER,
                      .clock = dup("host"), .param = dup("n"), .a_name = dup("fast"),
                      .b_name = dup("slow"), .tie = 0.05, .range = {16, 256}, .bracket = {32, 64},
                      .estimate = NAN, .seconds = 1.25, .npoints = 2};
  r.points = calloc(2, sizeof *r.points);
  if (!r.points) return r.npoints = 0, r;
  r.points[0] = (perf__claimrec_point){.x = 32, .side = dup("slower")};
  r.points[1] = (perf__claimrec_point){.x = 64, .side = dup("faster"), .measured = 1, .m = ratio()};
  return r;
}

/* Writes r, parses the text, writes that again and copies it: the same
 * text every time. Returns the first text (malloc'd). */
static char *round_trip(const perf__claimrec *r)
{
  char err[300] = "", *text = perf__claimrec_text(r);
  perf__claimrec back, copy;
  ST_CHECK(text != NULL);
  if (!text) return NULL;
  int e = perf__claimrec_parse(text, &back, err, sizeof err);
  ST_CHECKF(e == 0, "parse: %d %s", e, err);
  char *again = perf__claimrec_text(&back);
  ST_CHECKF(again && !strcmp(text, again), "write, read, write:\n%s\n%s", text, again);
  ST_EQ(perf__claimrec_copy(&copy, &back), 0);
  char *copied = perf__claimrec_text(&copy);
  ST_CHECK(copied && !strcmp(text, copied));
  free(again);
  free(copied);
  perf__claimrec_free(&back);
  perf__claimrec_free(&copy);
  return text;
}

ST_TEST(claimrec_writes_exactly_what_compare_c_wrote)
{
  perf__claimrec r = faster_record();
  char *text = round_trip(&r);
  ST_CHECKF(text && !strcmp(text, faster_text), "got\n%s\nwant\n%s", text, faster_text);
  free(text);
  perf__claimrec_free(&r);
  ST_CHECK(r.message == NULL && r.ratio.a.samples_s == NULL); /* emptied */
}

ST_TEST(claimrec_writes_exactly_what_crossover_c_wrote)
{
  perf__claimrec r = crossover_record();
  char *text = round_trip(&r);
  ST_CHECKF(text && !strcmp(text, crossover_text), "got\n%s\nwant\n%s", text, crossover_text);
  free(text);
  perf__claimrec_free(&r);
}

ST_TEST(claimrec_round_trips_plain_and_similar_records)
{
  perf__claimrec plain = {.message = dup("TRUE(x < \"y\")\tat t.c:3 holds \xff"),
                          .outcome = PERF_OUTCOME_FAIL};
  char *text = round_trip(&plain);
  ST_STR(text, "{\"message\": \"TRUE(x < \\\"y\\\")\\tat t.c:3 holds \\ufffd\", "
               "\"outcome\": \"FAIL\"}");
  free(text);
  perf__claimrec_free(&plain);
  perf__claimrec sim = {.message = dup("SIMILAR(a, b, 0.05) at t.c:12: INCONCLUSIVE"),
                        .outcome = PERF_OUTCOME_INCONCLUSIVE, .kind = PERF__CLAIMREC_SIMILAR,
                        .ratio = ratio()};
  sim.ratio.threshold = 0.05;
  sim.ratio.sweep.set = 0; /* outside a sweep: no "sweep" member */
  sim.ratio.ratio = INFINITY; /* not finite: null */
  text = round_trip(&sim);
  ST_CHECK(text && strstr(text, "\"kind\": \"SIMILAR\", \"clock\": \"host\", \"threshold\": "
                                "0.050000000000000003, \"ratio\": null,"));
  ST_CHECK(text && !strstr(text, "\"sweep\""));
  free(text);
  perf__claimrec_free(&sim);
}

/* A BASELINE record writes the members of its form after its kind, each
 * once, and reads, copies and writes them back the same: a check's
 * measurement and comparison, an update's measurement and SM clock, a
 * shared GPU's when and who alone. */
ST_TEST(claimrec_round_trips_a_baseline_record_in_each_form)
{
  perf__claimrec r = {.message = dup("BASELINE(w) at t.c:5: FAIL"), .outcome = PERF_OUTCOME_FAIL,
                      .kind = PERF__CLAIMREC_BASELINE};
  r.baseline = (perf__claimrec_baseline){.now_s = 1.5e-6, .was_s = 1e-6, .timing = dup("events clock"),
                                         .change = 0.5, .noise = 0.01, .between = -1, .runs = 0,
                                         .tolerance = 0.05, .samples = 8, .was_samples = 64,
                                         .beyond = 1, .why = dup("regression")};
  char *text = round_trip(&r);
  ST_STR(text, "{\"message\": \"BASELINE(w) at t.c:5: FAIL\", \"outcome\": \"FAIL\", \"kind\": "
               "\"BASELINE\", \"recorded\": false, \"now_s\": 1.5e-06, \"timing\": \"events clock\", "
               "\"samples\": 8, \"was_s\": 9.9999999999999995e-07, \"change\": 0.5, \"noise\": "
               "0.01, \"between\": -1, \"runs\": 0, \"tolerance\": 0.050000000000000003, "
               "\"was_samples\": 64, \"beyond\": true, \"why\": \"regression\"}");
  free(text);
  perf__claimrec_free(&r);
  r = (perf__claimrec){.message = dup("BASELINE(w) at t.c:5"), .outcome = PERF_OUTCOME_PASS,
                       .kind = PERF__CLAIMREC_BASELINE};
  r.baseline = (perf__claimrec_baseline){.recorded = 1, .now_s = 2e-6, .timing = dup("wall clock"),
                                         .samples = 64, .sm_mhz = 1980};
  text = round_trip(&r);
  ST_STR(text, "{\"message\": \"BASELINE(w) at t.c:5\", \"outcome\": \"PASS\", \"kind\": "
               "\"BASELINE\", \"recorded\": true, \"now_s\": 1.9999999999999999e-06, \"timing\": "
               "\"wall clock\", \"samples\": 64, \"sm_mhz\": 1980}");
  free(text);
  perf__claimrec_free(&r);
  r = (perf__claimrec){.message = dup("BASELINE(w) at t.c:5: INCONCLUSIVE"),
                       .outcome = PERF_OUTCOME_INCONCLUSIVE, .kind = PERF__CLAIMREC_BASELINE};
  r.baseline = (perf__claimrec_baseline){.shared = dup("during 3 samples: pid 7")};
  text = round_trip(&r);
  ST_STR(text, "{\"message\": \"BASELINE(w) at t.c:5: INCONCLUSIVE\", \"outcome\": "
               "\"INCONCLUSIVE\", \"kind\": \"BASELINE\", \"recorded\": false, \"shared\": "
               "\"during 3 samples: pid 7\"}");
  free(text);
  perf__claimrec_free(&r);
}

ST_TEST(claimrec_reads_the_fields_back)
{
  perf__claimrec r;
  char err[300] = "";
  ST_EQ(perf__claimrec_parse(crossover_text, &r, err, sizeof err), 0);
  ST_EQ(r.kind, PERF__CLAIMREC_CROSSOVER);
  ST_EQ(r.outcome, PERF_OUTCOME_PASS);
  ST_STR(perf__claimrec_kind_word(r.kind), "CROSSOVER");
  ST_CHECK(perf__claimrec_kind_word(PERF__CLAIMREC_PLAIN) == NULL);
  ST_CHECK(isnan(r.estimate) && r.range[1] == 256 && r.npoints == 2);
  if (r.npoints == 2) {
    const perf__claimrec_point *p = &r.points[1];
    ST_CHECK(!r.points[0].measured && p->measured && p->x == 64);
    ST_STR(p->m.kind, "CROSSOVER_POINT");
    ST_CHECK(p->m.a.watched && !p->m.b.watched && p->m.a.nsamples == 2);
    ST_CHECK(p->m.a.sm_clock_mhz && p->m.a.sm_clock_mhz[0] == 1980 && p->m.a.sm_clock_mhz[1] == 0);
    ST_CHECK(isnan(p->m.a.median_interval_s[1]) && p->m.b.iterations_per_sample == 40);
    ST_STR(p->m.b.gpu_work, "no \"CUPTI\"\n(shim)");
    ST_CHECK(p->m.sweep.set && p->m.sweep.value == 64 && p->m.sweep.points == 5);
  }
  perf__claimrec_free(&r);
}

/* text with the first `from` replaced by `to` (malloc'd). */
static char *edit(const char *text, const char *from, const char *to)
{
  const char *at = strstr(text, from);
  ST_CHECKF(at != NULL, "'%s' in the record", from);
  if (!at) return strdup(text);
  char *out = NULL;
  if (asprintf(&out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from)) < 0) return NULL;
  return out;
}

/* The record `from` -> `to` edits must be rejected with a message naming
 * `why`, and leave the record empty. */
static void rejects(const char *text, const char *from, const char *to, const char *why)
{
  char err[300] = "", *bad = edit(text, from, to);
  perf__claimrec r;
  int e = bad ? perf__claimrec_parse(bad, &r, err, sizeof err) : -1;
  ST_CHECKF(e == PERF__EPROTO, "%s -> %s: %d", from, to, e);
  ST_CHECKF(strstr(err, why) != NULL, "%s -> %s: '%s' should say '%s'", from, to, err, why);
  if (e == PERF__EPROTO) ST_CHECK(r.message == NULL && r.points == NULL && r.ratio.kind == NULL);
  free(bad);
}

ST_TEST(claimrec_rejects_bad_records)
{
  rejects(faster_text, "{\"message\"", "[{\"message\"", "claim record");   /* malformed */
  rejects(faster_text, faster_text, "[1, 2]", "is not an object");
  rejects(faster_text, "\"message\"", "\"msg\"", "'message' is missing");
  rejects(faster_text, "\"outcome\": \"PASS\"", "\"result\": \"PASS\"", "'outcome' is missing");
  rejects(faster_text, "\"outcome\": \"PASS\"", "\"outcome\": \"MAYBE\"", "not an outcome");
  rejects(faster_text, "\"kind\": \"FASTER\"", "\"kind\": \"FASTEST\"", "not a claim kind");
  rejects(faster_text, "\"kind\": \"FASTER\"", "\"kind\": \"CROSSOVER_POINT\"",
          "not a claim kind");
  rejects(faster_text, "\"rounds\": 12", "\"rounds\": \"12\"", "'rounds' is not a whole number");
  rejects(faster_text, "\"kind\": \"FASTER\"", "\"kind\": \"QUICKER\"",
          "'kind' is not a claim kind (FASTER, SIMILAR, CROSSOVER, BANDWIDTH, FLOPS, "
          "LINK_BANDWIDTH, TRUE, NEAR, SYNCS, SAME_WORK, BASELINE)");
  rejects(faster_text, "\"looks\": 2", "\"looks\": 2.5", "'looks' is not a whole number");
  rejects(faster_text, "\"ratio\": 2.5", "\"ratio\": \"fast\"", "'ratio' is not a number");
  rejects(faster_text, "\"interval\": [2.25, 2.75]", "\"interval\": [2.25]",
          "'interval' is not a pair of numbers");
  rejects(faster_text, "\"budget_stretched\": false", "\"budget_stretched\": 0",
          "'budget_stretched' is not true or false");
  rejects(faster_text, "\"a\": {", "\"x\": {", "'a' is missing");
  rejects(faster_text, "\"name\": \"slow\"", "\"name\": 7", "'b.name' is not a string");
  rejects(faster_text, "[1980, null]", "[1980]", "'a.sm_clock_mhz' does not have one clock");
  rejects(faster_text, "[1980, null]", "[1980, -3]", "'a.sm_clock_mhz' is not an array");
  rejects(faster_text, "\"throttled_kept\": 0, ", "", "'a.throttled_kept' is missing");
  rejects(faster_text, "\"samples_s\": [0.001,", "\"samples_s\": [true,",
          "'a.samples_s' is not an array of numbers");
  rejects(faster_text, "\"point\": 2", "\"point\": -2", "'sweep.point' is not a whole number");
  rejects(crossover_text, "\"side\": \"slower\"", "\"side\": \"sideways\"",
          "'points[0].side' is not a side");
  rejects(crossover_text, "{\"x\": 32, \"side\": \"slower\"}", "7", "'points[0]' is not an object");
  rejects(crossover_text, "\"kind\": \"CROSSOVER_POINT\"", "\"kind\": \"FASTER\"",
          "'points[1].kind' is not CROSSOVER_POINT");
  rejects(crossover_text, "\"name\": \"fast\"", "\"name\": null", "'points[1].a.name'");
  rejects(crossover_text, "\"bracket\"", "\"brackets\"", "'bracket' is missing");
}

ST_TEST(claimrec_passes_over_members_it_does_not_know)
{
  perf__claimrec r;
  char err[300] = "";
  ST_EQ(perf__claimrec_parse("{\"message\": \"m\", \"outcome\": \"SKIP\", \"later\": [1]}", &r,
                             err, sizeof err), 0);
  char *text = perf__claimrec_text(&r);
  ST_STR(text, "{\"message\": \"m\", \"outcome\": \"SKIP\"}");
  free(text);
  perf__claimrec_free(&r);
}

/* Whatever bytes a claim's message holds (a workload's .name is the
 * user's), its record reads back: C1 controls are escaped; overlong
 * forms, surrogates, code points beyond U+10FFFF and U+FFFE/U+FFFF become
 * U+FFFD (one per byte); valid text stays as it is. */
ST_TEST(claimrec_any_message_bytes_read_back)
{
  char msg[] = "c1 \xc2\x85 nonchar \xef\xbf\xbe overlong \xc0\xaf surrogate \xed\xa0\x80 "
               "big \xf4\x90\x80\x80 cut \xe2\x82 ok \xc2\xb5s";
  perf__claimrec r = {.message = msg, .outcome = PERF_OUTCOME_PASS}, back = {0};
  char *text = perf__claimrec_text(&r), err[300] = "";
  ST_CHECK(text != NULL);
  if (!text) return;
  ST_CHECKF(strstr(text, "c1 \\u0085 nonchar \\ufffd\\ufffd\\ufffd overlong \\ufffd\\ufffd ") != NULL,
            "%s", text);
  ST_CHECKF(perf__claimrec_parse(text, &back, err, sizeof err) == 0, "%s: %s", err, text);
  ST_CHECKF(back.message && strstr(back.message, "ok \xc2\xb5s"), "%s",
            back.message ? back.message : "(none)");
  perf__claimrec_free(&back);
  free(text);
}

/* A measurement the noise disturbed carries a "noise" member, read back
 * field by field; an undisturbed one has none. */
ST_TEST(claimrec_noise_member_round_trips)
{
  perf__claimrec r = faster_record();
  char err[300] = "", *plain = perf__claimrec_text(&r);
  ST_CHECK(plain && !strstr(plain, "\"noise\""));
  free(plain);
  r.ratio.noise = (perf__claimrec_noise){.set = 1, .host_retaken = 7, .host_kept = 1,
                                         .gpu_retaken = 4, .gpu_kept = 2, .shared_rounds = 3,
                                         .early_look = 1,
                                         .cause = dup("another process used the GPU: pid 4145")};
  char *text = round_trip(&r);
  ST_CHECK(text && strstr(text, "\"noise\": {\"host_retaken\": 7, \"host_kept\": 1, "
                                "\"gpu_retaken\": 4, \"gpu_kept\": 2, \"shared_rounds\": 3, "
                                "\"early_look\": true, \"cause\": \"another process used the GPU: pid 4145\"}"));
  perf__claimrec back;
  ST_EQ(text ? perf__claimrec_parse(text, &back, err, sizeof err) : -1, 0);
  if (text) {
    const perf__claimrec_noise *n = &back.ratio.noise;
    ST_CHECK(n->set && n->host_retaken == 7 && n->host_kept == 1 && n->gpu_retaken == 4 &&
             n->gpu_kept == 2 && n->shared_rounds == 3 && n->early_look == 1 &&
             n->cause && strstr(n->cause, "pid 4145"));
    perf__claimrec_free(&back);
  }
  free(text);
  perf__claimrec_free(&r);
}

/* The kind table: each kind's word and whether it carries a ratio. */
ST_TEST(claimrec_kind_table_words_and_ratio_kinds)
{
  ST_CHECK(perf__claimrec_kind_word(PERF__CLAIMREC_PLAIN) == NULL);
  ST_STR(perf__claimrec_kind_word(PERF__CLAIMREC_FASTER), "FASTER");
  ST_STR(perf__claimrec_kind_word(PERF__CLAIMREC_SIMILAR), "SIMILAR");
  ST_STR(perf__claimrec_kind_word(PERF__CLAIMREC_CROSSOVER), "CROSSOVER");
  ST_CHECK(perf__claimrec_kind_word(PERF__CLAIMREC_KIND_COUNT) == NULL);
  ST_EQ(perf__claimrec_is_ratio(PERF__CLAIMREC_PLAIN), 0);
  ST_EQ(perf__claimrec_is_ratio(PERF__CLAIMREC_FASTER), 1);
  ST_EQ(perf__claimrec_is_ratio(PERF__CLAIMREC_SIMILAR), 1);
  ST_EQ(perf__claimrec_is_ratio(PERF__CLAIMREC_CROSSOVER), 0);
  ST_EQ(perf__claimrec_is_ratio((perf__claimrec_kind)99), 0);
}
