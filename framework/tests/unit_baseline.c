/* unit_baseline.c — baseline files: round trips, malformed input, atomic writes, merges, slugs. */
/* Round trips include work counts; every malformed case is named with its
 * position. */
#define _GNU_SOURCE
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline/baseline.h"
#include "baseline/blemit.h"
#include "baseline/blyaml.h"
#include "baseline/blrule.h"
#include "baseline/machine.h"
#include "selftest.h"
#include "util/status.h"

static const char *good =
    "schema: 1\n"
    "fingerprint:\n"
    "  name: NVIDIA H100 80GB HBM3\n"
    "  driver: 580.159.04\n"
    "entries:\n"
    "- test: sync_points.small_gemm\n"
    "  workload: async\n"
    "  clock: events\n"
    "  median_s: 7.782e-06\n"
    "  spread_s: 1.5e-07\n"
    "  samples: 48\n"
    "  tolerance: 0.05\n"
    "  recorded: 2026-11-21\n"
    "ratios:\n"
    "- test: sync_points.small_gemm\n"
    "  claim: FASTER(async, sync_each, 1.3)\n"
    "  ratio: 2.024\n"
    "  recorded: 2026-11-21\n";

static int parse(const char *text, perf__baseline *b, char *err)
{
  return perf__blyaml_parse("b.yaml", (const unsigned char *)text, strlen(text), b,
                        err, 400);
}

static char *temp_dir(void)
{
  static char dir[64];
  snprintf(dir, sizeof dir, "/tmp/perfgate-bl-XXXXXX");
  return mkdtemp(dir);
}

ST_TEST(baseline_parses_a_good_file)
{
  perf__baseline b;
  char err[400] = "";
  ST_EQ(parse(good, &b, err), 0);
  ST_CHECKF(err[0] == '\0', "%s", err);
  ST_EQ(b.nfp, 2);
  ST_CHECK(!strcmp(b.fp[0].key, "name") && !strcmp(b.fp[0].value, "NVIDIA H100 80GB HBM3"));
  ST_EQ(b.nentries, 1);
  const perf__baseline_entry *e = perf__baseline_find(&b, "sync_points.small_gemm", "async");
  ST_CHECK(e && !strcmp(e->clock, "events") && e->samples == 48);
  ST_NEAR(e ? e->median_s : 0, 7.782e-06, 1e-18);
  ST_EQ(b.nratios, 1);
  ST_NEAR(b.ratios[0].ratio, 2.024, 1e-12);
  perf__baseline_free(&b);
}

/* An entry's fields but its SM clock (E2: another workload), and its SM
 * clock (median, min, max) in a flow mapping. */
#define E "test: t, workload: w, clock: wall, median_s: 1, spread_s: 0, samples: 1, recorded: 2026-01-01"
#define E2 "test: t, workload: w2, clock: wall, median_s: 1, spread_s: 0, samples: 1, recorded: 2026-01-01"
#define CLK(m, lo, hi) "sm_clock_mhz: " m ", sm_clock_min_mhz: " lo ", sm_clock_max_mhz: " hi
/* A work count's fields but its instructions (W: all of them). */
#define W0 "test: t, workload: w, dram_bytes_read: 0, recorded: 2026-01-01"
#define W W0 ", instructions: 123"

/* Each malformed file fails with "b.yaml:line:column: ..." naming the
 * problem, and leaves the model empty. */
ST_TEST(baseline_rejects_each_malformed_case_with_its_position)
{
  static const struct {
    const char *text, *where, *says;
  } bad[] = {
      {"", "b.yaml:1:1:", "empty"},
      {"schema: 1\nfingerprint: [\n", "b.yaml:", "b.yaml"},
      {"- 1\n- 2\n", "b.yaml:1:1:", "a mapping at the top level"},
      {"schema: 3\n", "b.yaml:1:9:", "unknown schema version '3' (this perfgate reads versions 1 and 2)"},
      {"schema: two\n", "b.yaml:1:9:", "unknown schema version 'two'"},
      {"schema: \"2\"\n", "b.yaml:1:9:", "the schema version must be a number, not quoted text"},
      /* the SM clock of an entry's samples: schema version 2 only, and
       * there required, whichever comes first in the file */
      {"schema: 1\nentries:\n- test: t\n  workload: w\n  clock: wall\n  median_s: 1\n  spread_s: 0\n"
       "  samples: 1\n  sm_clock_mhz: unknown\n  recorded: 2026-01-01\n",
       "b.yaml:9:3:", "'sm_clock_mhz' is a field of schema version 2, but the file says schema: 1"},
      {"entries:\n- {" E ", " CLK("1980", "1980", "1980") "}\nschema: 1\n", "b.yaml:2:",
       "'sm_clock_mhz' is a field of schema version 2"},
      /* a clock without its bounds in a version-1 file: the version is
       * what is wrong, not the bounds */
      {"schema: 1\nentries:\n- {" E ", sm_clock_mhz: 1980}\n", "b.yaml:3:",
       "'sm_clock_mhz' is a field of schema version 2, but the file says schema: 1"},
      /* the declared work (issue 35): schema version 2, flops with its type */
      {"schema: 1\nentries:\n- {" E ", bytes_read: 1024}\n", "b.yaml:3:",
       "'bytes_read' is a field of schema version 2, but the file says schema: 1"},
      {"schema: 2\nentries:\n- {" E ", sm_clock_mhz: unknown, flops: 2e9}\n", "b.yaml:3:",
       "'flops' needs its 'flop_type'"},
      {"schema: 2\nentries:\n- {" E ", sm_clock_mhz: unknown, flops: 2e9, flop_type: fp4}\n",
       "b.yaml:3:", "'flop_type' must be fp64, fp32, tf32, fp16, bf16, fp8 or int8, got 'fp4'"},
      {"schema: 2\nentries:\n- {" E ", sm_clock_mhz: unknown, bytes_written: -1}\n", "b.yaml:3:",
       "bytes_written"},
      {"schema: 2\nentries:\n- {" E ", sm_clock_mhz: unknown}\n- {" E2 "}\n", "b.yaml:4:",
       "an entry lacks 'sm_clock_mhz' (schema version 2"},
      {"entries:\n- {" E "}\nschema: 2\n", "b.yaml:2:", "an entry lacks 'sm_clock_mhz'"},
      {"schema: 2\nentries:\n- {" E ", sm_clock_mhz: unknown, sm_clock_min_mhz: 1}\n", "b.yaml:3:",
       "'sm_clock_min_mhz' with sm_clock_mhz unknown"},
      {"schema: 2\nentries:\n- {" E ", sm_clock_mhz: 1980, sm_clock_max_mhz: 1980}\n", "b.yaml:3:",
       "an entry lacks 'sm_clock_min_mhz'"},
      {"schema: 2\nentries:\n- {" E ", sm_clock_min_mhz: 1755}\n", "b.yaml:3:",
       "an entry lacks 'sm_clock_mhz'"},
      {"schema: 2\nentries:\n- {" E ", " CLK("1980", "1990", "2000") "}\n", "b.yaml:3:",
       "'sm_clock_mhz' 1980 must lie between sm_clock_min_mhz (1990) and sm_clock_max_mhz (2000)"},
      {"schema: 2\nentries:\n- {" E ", " CLK("1980.5", "1755", "1980") "}\n", "b.yaml:3:",
       "'sm_clock_mhz' must be a whole number of MHz"},
      {"schema: 2\nentries:\n- {" E ", " CLK("0", "0", "1980") "}\n", "b.yaml:3:",
       "'sm_clock_mhz' must be a number in [1, 100000]"},
      {"schema: 2\nentries:\n- {" E ", " CLK("\"1980\"", "1755", "1980") "}\n", "b.yaml:3:",
       "'sm_clock_mhz' must be a number, not quoted text"},
      {"schema: 2\nentries:\n- {" E ", " CLK("fast", "1755", "1980") "}\n", "b.yaml:3:",
       "'sm_clock_mhz' must be a number in"},
      /* each update run's median: schema version 2, a list of plain numbers */
      {"schema: 1\nentries:\n- {" E ", runs_s: [1, 1]}\n", "b.yaml:3:",
       "'runs_s' is a field of schema version 2, but the file says schema: 1"},
      {"schema: 2\nentries:\n- {" E ", sm_clock_mhz: unknown, runs_s: 1}\n", "b.yaml:3:",
       "'runs_s' must be a list of 1 to 16 numbers"},
      {"schema: 2\nentries:\n- {" E ", sm_clock_mhz: unknown, runs_s: []}\n", "b.yaml:3:",
       "'runs_s' must be a list of 1 to 16 numbers"},
      {"schema: 2\nentries:\n- {" E ", sm_clock_mhz: unknown, runs_s: [1, \"2\"]}\n", "b.yaml:3:",
       "'runs_s' in an entry must be a list of numbers, not quoted text ('2')"},
      {"schema: 2\nentries:\n- {" E ", sm_clock_mhz: unknown, runs_s: [1, [2]]}\n", "b.yaml:3:",
       "'runs_s' in an entry must be a list of numbers"},
      {"schema: 2\nentries:\n- {" E ", sm_clock_mhz: unknown, runs_s: [1, -2]}\n", "b.yaml:3:",
       "'runs_s' must be a number in [1e-12, 3600], got '-2'"},
      {"schema: 2\nentries:\n- {" E ", sm_clock_mhz: unknown, runs_s: [1, .inf]}\n", "b.yaml:3:",
       "got '.inf'"},
      {"schema: 1\nentries:\n- {" E ", slow_runs_s: [1]}\n", "b.yaml:3:",
       "'slow_runs_s' is a field of schema version 2, but the file says schema: 1"},
      {"schema: 2\nentries:\n- {" E ", sm_clock_mhz: unknown, slow_runs_s: [1, x]}\n", "b.yaml:3:",
       "'slow_runs_s' must be a number in [1e-12, 3600], got 'x'"},
      /* a launch-normalized entry's launch reference: schema 2, seconds per launch */
      {"schema: 1\nentries:\n- {" E ", launch_s: 3.4e-6}\n", "b.yaml:3:",
       "'launch_s' is a field of schema version 2, but the file says schema: 1"},
      {"schema: 2\nentries:\n- {" E ", sm_clock_mhz: unknown, launch_s: 2}\n", "b.yaml:3:",
       "'launch_s' must be a number in [1e-09, 1], got '2'"},
      {"schema: 2\nentries:\n- {" E ", sm_clock_mhz: unknown, runs_s: [1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
       "1,1,1]}\n", "b.yaml:3:", "'runs_s' holds too many values (at most 16)"},
      {"schema: 2\nentries:\n- {" E ", sm_clock_mhz: unknown, recorded_s: [1]}\n", "b.yaml:3:",
       "must be a single value"},
      /* the work counts (PERF_EXPECT_SAME_WORK): schema version 2, whole
       * items, counts in range, one per test and workload */
      {"schema: 1\nwork:\n- {" W "}\n", "b.yaml:2:1:",
       "'work' is a field of schema version 2, but the file says schema: 1"},
      {"work:\n- {" W "}\nschema: 1\n", "b.yaml:1:1:",
       "'work' is a field of schema version 2, but the file says schema: 1"},
      {"schema: 2\nwork: 3\n", "b.yaml:2:7:", "expected a list under 'work'"},
      {"schema: 2\nwork:\n- {" W ", cycles: 9}\n", "b.yaml:3:", "unknown key 'cycles' in a work count"},
      {"schema: 2\nwork:\n- {" W0 "}\n", "b.yaml:3:3:", "a work count lacks 'instructions'"},
      {"schema: 2\nwork:\n- {test: t, workload: w, instructions: 1, recorded: 2026-01-01}\n",
       "b.yaml:3:3:", "a work count lacks 'dram_bytes_read'"},
      {"schema: 2\nwork:\n- {test: t, instructions: 1, dram_bytes_read: 0, recorded: 2026-01-01}\n",
       "b.yaml:3:3:", "a work count lacks 'workload'"},
      {"schema: 2\nwork:\n- {" W0 ", instructions: 0}\n", "b.yaml:3:",
       "'instructions' must be a number in [1, 1e+18], got '0'"},
      {"schema: 2\nwork:\n- {" W0 ", instructions: 2e18}\n", "b.yaml:3:",
       "'instructions' must be a number in [1, 1e+18], got '2e18'"},
      {"schema: 2\nwork:\n- {" W0 ", instructions: many}\n", "b.yaml:3:",
       "'instructions' must be a number in [1, 1e+18], got 'many'"},
      {"schema: 2\nwork:\n- {" W0 ", instructions: \"12\"}\n", "b.yaml:3:",
       "'instructions' must be a number, not quoted text ('12')"},
      {"schema: 2\nwork:\n- {" W0 ", instructions: 2500.5}\n", "b.yaml:3:",
       "'instructions' must be a whole number, got '2500.5'"},
      {"schema: 2\nwork:\n- {test: t, workload: w, instructions: 1, dram_bytes_read: 0.5, "
       "recorded: 2026-01-01}\n", "b.yaml:3:", "'dram_bytes_read' must be a whole number, got '0.5'"},
      {"schema: 2\nwork:\n- {test: t, workload: w, instructions: 1, dram_bytes_read: -1, "
       "recorded: 2026-01-01}\n", "b.yaml:3:", "'dram_bytes_read' must be a number in [0, 1e+18], got '-1'"},
      {"schema: 2\nwork:\n- {test: t, workload: w, instructions: 1, dram_bytes_read: 1.5e18, "
       "recorded: 2026-01-01}\n", "b.yaml:3:", "'dram_bytes_read' must be a number in [0, 1e+18], got '1.5e18'"},
      {"schema: 2\nwork:\n- {" W "}\n- {test: t, workload: v, instructions: 1, dram_bytes_read: 0, "
       "recorded: 2026-01-01}\n- {" W "}\n", "b.yaml:5:3:", "a second work count for t / w"},
      {"fingerprint: {a: b}\n", "b.yaml:1:1:", "lacks 'schema'"},
      {"schema: 1\nschema: 1\n", "b.yaml:2:1:", "duplicate key 'schema'"},
      {"schema: 1\ncolour: red\n", "b.yaml:2:1:", "unknown key 'colour'"},
      {"schema: 1\nentries: 3\n", "b.yaml:2:10:", "a list under 'entries'"},
      {"schema: 1\nfingerprint:\n  a: {b: c}\n", "b.yaml:3:6:", "must be a single value"},
      {"schema: 1\nentries:\n- test: t\n  test: u\n", "b.yaml:4:3:", "duplicate key 'test'"},
      {"schema: 1\nentries:\n- test: t\n  workload: w\n  clock: wall\n  spread_s: 0\n  samples: 1\n  recorded: 2026-01-01\n",
       "b.yaml:3:3:", "lacks 'median_s'"},
      {"schema: 1\nentries:\n- {test: t, workload: w, clock: wall, median_s: -1, spread_s: 0, samples: 1, recorded: 2026-01-01}\n",
       "b.yaml:3:", "'median_s' must be a number"},
      {"schema: 1\nentries:\n- {test: t, workload: w, clock: wall, median_s: .nan, spread_s: 0, samples: 1, recorded: 2026-01-01}\n",
       "b.yaml:3:", "got '.nan'"},
      {"schema: 1\nentries:\n- {test: t, workload: w, clock: wall, median_s: nan, spread_s: 0, samples: 1, recorded: 2026-01-01}\n",
       "b.yaml:3:", "got 'nan'"},
      {"schema: 1\nentries:\n- {test: t, workload: w, clock: wall, median_s: 1e300, spread_s: 0, samples: 1, recorded: 2026-01-01}\n",
       "b.yaml:3:", "got '1e300'"},
      {"schema: 1\nentries:\n- {test: t, workload: w, clock: wall, median_s: 1, spread_s: 0, samples: 1.5, recorded: 2026-01-01}\n",
       "b.yaml:3:", "'samples' must be a whole number, got '1.5'"},
      {"schema: 1\nentries:\n- {test: t, workload: w, clock: hourglass, median_s: 1, spread_s: 0, samples: 1, recorded: 2026-01-01}\n",
       "b.yaml:3:", "'clock' must be events, wall, submit, device or cold"},
      {"schema: 1\nentries:\n- {test: t, workload: w, clock: wall, median_s: 1, spread_s: 0, samples: 1, recorded: yesterday}\n",
       "b.yaml:3:", "date YYYY-MM-DD"},
      {"schema: 1\nentries:\n- {test: t, workload: w, clock: wall, median_s: 1, spread_s: 0, samples: 1, recorded: 2026-01-01, x: 1}\n",
       "b.yaml:3:", "unknown key 'x'"},
      {"schema: 1\nfingerprint: &a {x: y}\nratios: *a\n", "b.yaml:3:9:", "aliases are not allowed"},
      {"a: &a [1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n",
       "b.yaml:1:1:", "unknown key 'a'"},
      {"schema: 1\nfingerprint: {a: &x b}\nentries: [*x]\n", "b.yaml:3:11:", "aliases are not allowed"},
      {"schema: 1\n---\nschema: 1\n", "b.yaml:2:1:", "one document"},
      {"schema: 1\nratios:\n- {test: t, claim: c, ratio: 0, recorded: 2026-01-01}\n", "b.yaml:3:", "'ratio' must be a number"},
      /* one entry per test and workload, one ratio per test and claim: a
       * second is refused where it starts (the last no longer wins) */
      {"schema: 1\nentries:\n- {" E "}\n- {" E "}\n", "b.yaml:4:3:", "a second entry for t / w"},
      {"schema: 1\nratios:\n- {test: t, claim: c, ratio: 1, recorded: 2026-01-01}\n"
       "- {test: u, claim: c, ratio: 1, recorded: 2026-01-01}\n"
       "- {test: t, claim: c, ratio: 2, recorded: 2026-01-02}\n", "b.yaml:5:3:",
       "a second ratio for t / c"},
      /* strict: numbers are plain decimals, dates exist, no tags, no NUL */
      {"schema: \"1\"\n", "b.yaml:1:9:", "the schema version must be a number, not quoted text"},
      {"schema: 1\nentries:\n- {test: t, workload: w, clock: wall, median_s: \"1\", spread_s: 0, samples: 1, recorded: 2026-01-01}\n",
       "b.yaml:3:", "must be a number, not quoted text"},
      {"schema: 1\nentries:\n- {test: t, workload: w, clock: wall, median_s: 0x10, spread_s: 0, samples: 1, recorded: 2026-01-01}\n",
       "b.yaml:3:", "got '0x10'"},
      {"schema: 1\nentries:\n- {test: t, workload: w, clock: wall, median_s: 1, spread_s: 0, samples: 1, recorded: 2026-02-30}\n",
       "b.yaml:3:", "that exists, got '2026-02-30'"},
      {"schema: 1\nentries:\n- {test: t, workload: w, clock: wall, median_s: 1, spread_s: 0, samples: 1, recorded: 2026-13-01}\n",
       "b.yaml:3:", "that exists"},
      {"schema: 1\nentries:\n- {test: t, workload: w, clock: wall, median_s: !!float 1, spread_s: 0, samples: 1, recorded: 2026-01-01}\n",
       "b.yaml:3:", "tags are not allowed in a baseline file (got 'tag:yaml.org,2002:float')"},
      {"schema: 1\nfingerprint: !custom {a: b}\n", "b.yaml:2:14:", "tags are not allowed"},
      {"schema: 1\nentries:\n- {test: t, workload: \"small\\0evil\", clock: wall, median_s: 1, spread_s: 0, samples: 1, recorded: 2026-01-01}\n",
       "b.yaml:3:", "a value holds a NUL character"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    perf__baseline b;
    char err[400] = "";
    int r = parse(bad[i].text, &b, err);
    ST_CHECKF(r == PERF__EBADFILE && strncmp(err, bad[i].where, strlen(bad[i].where)) == 0 &&
                  strstr(err, bad[i].says) && b.nentries == 0 && b.nfp == 0,
              "case %zu: %d '%s'", i, r, err);
    perf__baseline_free(&b);
  }
}

/* The strict rules still take what is valid: a leap day, exponents,
 * a leading '.', quoted text where text is wanted. */
ST_TEST(baseline_accepts_valid_dates_numbers_and_quoted_text)
{
  perf__baseline b;
  char err[400] = "";
  ST_EQ(parse("schema: 1\nentries:\n- {test: \"t\", workload: 'w', clock: wall, median_s: 1.5e-05, "
              "spread_s: .5, samples: 64, recorded: 2024-02-29}\n", &b, err), 0);
  ST_CHECKF(b.nentries == 1 && b.entries[0].median_s == 1.5e-05 && b.entries[0].spread_s == 0.5,
            "%zu: %s", b.nentries, err);
  perf__baseline_free(&b);
  ST_EQ(parse("schema: 1\nentries:\n- {test: t, workload: w, clock: wall, median_s: 1, spread_s: 0, "
              "samples: 1, recorded: 2023-02-29}\n", &b, err), PERF__EBADFILE);
  perf__baseline_free(&b);
}

/* A file read, changed and saved reads back the same. It is written as
 * version 2 with each entry's SM clock, a known one as three whole numbers,
 * an unknown one as `unknown` (never a number): a version-1 file saved
 * becomes version 2 with its clocks unknown. */
ST_TEST(baseline_round_trips_through_a_file)
{
  perf__baseline a, b;
  char err[400] = "", path[128];
  char *dir = temp_dir();
  ST_CHECK(dir != NULL);
  snprintf(path, sizeof path, "%s/h100.yaml", dir);
  ST_EQ(parse(good, &a, err), 0); /* version 1: async's clock unknown */
  perf__baseline_entry e = a.entries[0];
  snprintf(e.workload, sizeof e.workload, "%s", "needs: quoting # really");
  e.median_s = 1.23456789e-5;
  e.sm_clock = (perf__baseline_mhz){1980, 1755, 1995};
  e.nruns = 3; /* each update run's median, in run order */
  e.runs_s[0] = 3.138e-5, e.runs_s[1] = 2.341e-5, e.runs_s[2] = 2.128e-5;
  e.nslow = 1; /* a slow mode the update saw (baseline/blrule.h) */
  e.slow_s[0] = 2.5e-5;
  e.launch_s = 3.4e-6; /* launch-normalized (baseline/blrule.h) */
  e.work = (perf__peaks_work){.bytes_read = 67108864, .bytes_written = 67108864,
                              .flops = 1.099511627776e12, .type = PERF_FLOP_FP16};
  ST_EQ(perf__baseline_put_entry(&a, &e), 0);
  perf__baseline_entry wide = e; /* 16 runs: still one line, one line in a diff */
  snprintf(wide.workload, sizeof wide.workload, "%s", "sixteen");
  wide.nruns = PERF__BL_MAX_RUNS, wide.nslow = 0;
  for (int i = 0; i < wide.nruns; i++) wide.runs_s[i] = 1.23456789e-5 + i * 1e-13;
  ST_EQ(perf__baseline_put_entry(&a, &wide), 0);
  ST_EQ(perf__blemit_save(path, &a, err, sizeof err), 0);
  char *text = st_slurp(path);
  ST_CHECKF(text && !strncmp(text, "schema: 2\n", 10) && strstr(text, "  sm_clock_mhz: unknown\n") &&
                strstr(text, "  sm_clock_mhz: 1980\n  sm_clock_min_mhz: 1755\n"
                             "  sm_clock_max_mhz: 1995\n  runs_s: [3.138e-05, 2.341e-05, "
                             "2.128e-05]\n  slow_runs_s: [2.5e-05]\n  launch_s: 3.4e-06\n  bytes_read: 67108864\n"
                             "  bytes_written: 67108864\n  flops: 1.09951163e+12\n"
                             "  flop_type: fp16\n"),
            "%s", text ? text : "(no file)");
  const char *sixteen = text ? strstr(text, "workload: sixteen") : NULL;
  const char *list = sixteen ? strstr(sixteen, "  runs_s: [") : NULL;
  ST_CHECKF(list && strchr(list, ']') < strchr(list, '\n'), "%s", sixteen ? sixteen : "(none)");
  free(text);
  ST_EQ(perf__blyaml_load(path, &b, err, sizeof err), 0);
  ST_CHECKF(b.nentries == 3 && b.nratios == 1 && b.nfp == 2 && b.schema == 2, "%zu %zu %zu %s",
            b.nentries, b.nratios, b.nfp, err);
  const perf__baseline_entry *q = perf__baseline_find(&b, e.test, "needs: quoting # really");
  const perf__baseline_entry *u = perf__baseline_find(&b, e.test, "async");
  ST_CHECK(q && q->median_s == e.median_s && q->samples == 48 && !strcmp(q->recorded, "2026-11-21"));
  ST_CHECK(q && q->sm_clock.median == 1980 && q->sm_clock.min == 1755 && q->sm_clock.max == 1995);
  ST_CHECK(u && u->sm_clock.median == 0 && u->sm_clock.min == 0 && u->sm_clock.max == 0);
  ST_CHECK(q && q->nruns == 3 && q->runs_s[0] == 3.138e-5 && q->runs_s[2] == 2.128e-5);
  ST_CHECK(q && q->nslow == 1 && q->slow_s[0] == 2.5e-5 && q->launch_s == 3.4e-6);
  ST_CHECK(q && q->work.bytes_read == 67108864 && q->work.bytes_written == 67108864 &&
           fabs(q->work.flops / 1.099511627776e12 - 1) < 1e-8 && q->work.type == PERF_FLOP_FP16);
  ST_CHECK(u && !perf__peaks_declared(&u->work));
  ST_CHECK(u && u->nruns == 0 && u->nslow == 0); /* none recorded in version 1 */
  ST_CHECK(!strcmp(b.ratios[0].claim, "FASTER(async, sync_each, 1.3)"));
  perf__baseline_free(&a);
  perf__baseline_free(&b);
  st_rmtree(dir);
}

/* The work counts (PERF_EXPECT_SAME_WORK claims) read back equal, a count
 * of 15 digits as every other: they are written exactly, after the
 * ratios, as a `work:` list; a file written twice is the same text; a
 * count the loader would refuse is not written. */
ST_TEST(baseline_work_counts_round_trip_exactly)
{
  static const char *text =
      "schema: 2\n"
      "fingerprint:\n"
      "  name: NVIDIA H200\n"
      "entries: []\n"
      "ratios: []\n"
      "work:\n"
      "- test: suite.gemm\n"
      "  workload: gemm\n"
      "  instructions: 123456789012345\n"
      "  dram_bytes_read: 4194304\n"
      "  recorded: 2026-11-29\n"
      "- test: suite.gemm\n"
      "  workload: cpu[n=256]\n"
      "  instructions: 1\n"
      "  dram_bytes_read: 0\n"
      "  recorded: 2026-11-28\n";
  perf__baseline a, b;
  char err[400] = "", path[128];
  char *dir = temp_dir();
  ST_CHECK(dir != NULL);
  snprintf(path, sizeof path, "%s/h200.yaml", dir);
  ST_EQ(parse(text, &a, err), 0);
  ST_CHECKF(a.nworks == 2, "%zu: %s", a.nworks, err);
  const perf__baseline_work *w = perf__baseline_find_work(&a, "suite.gemm", "gemm");
  ST_CHECK(w && w->insts == 123456789012345.0 && w->dram_read == 4194304.0 &&
           !strcmp(w->recorded, "2026-11-29"));
  ST_CHECK(perf__baseline_find_work(&a, "suite.gemm", "other") == NULL);
  ST_CHECK(perf__baseline_find(&a, "suite.gemm", "gemm") == NULL); /* a count is no entry */
  /* one put replaces, another appends */
  perf__baseline_work more = {.test = "suite.gemm", .workload = "cpu[n=256]", .insts = 987654321098765.0,
                              .dram_read = 3, .recorded = "2026-11-30"};
  ST_EQ(perf__baseline_put_work(&a, &more), 0);
  snprintf(more.workload, sizeof more.workload, "big");
  more.insts = 9.99e17, more.dram_read = 123456789012345678.0;
  ST_EQ(perf__baseline_put_work(&a, &more), 0);
  ST_EQ(a.nworks, 3);
  ST_EQ(perf__blemit_save(path, &a, err, sizeof err), 0);
  char *saved = st_slurp(path);
  ST_CHECKF(saved && strstr(saved, "ratios: []\nwork:\n- test: suite.gemm\n  workload: gemm\n"
                                   "  instructions: 123456789012345\n  dram_bytes_read: 4194304\n"
                                   "  recorded: 2026-11-29\n"), "%s", saved ? saved : "(no file)");
  ST_EQ(perf__blyaml_load(path, &b, err, sizeof err), 0);
  ST_EQ(b.nworks, 3);
  for (size_t i = 0; i < a.nworks; i++) {
    const perf__baseline_work *x = &a.works[i];
    const perf__baseline_work *y = perf__baseline_find_work(&b, x->test, x->workload);
    ST_CHECKF(y && y->insts == x->insts && y->dram_read == x->dram_read &&
                  !strcmp(y->recorded, x->recorded), "%s: %.17g %.17g", x->workload,
              y ? y->insts : -1, y ? y->dram_read : -1);
  }
  ST_EQ(perf__blemit_save(path, &b, err, sizeof err), 0);
  char *again = st_slurp(path);
  ST_CHECK(saved && again && !strcmp(saved, again));
  /* an instruction count below 1 is not written: the file stays */
  more.insts = 0;
  ST_EQ(perf__baseline_put_work(&b, &more), 0);
  ST_EQ(perf__blemit_save(path, &b, err, sizeof err), PERF__EINVAL);
  ST_CHECKF(strstr(err, "a work count that is not a whole number in [1, 1e18]"), "%s", err);
  more.insts = 2.5; /* nor a fraction of one */
  ST_EQ(perf__baseline_put_work(&b, &more), 0);
  ST_EQ(perf__blemit_save(path, &b, err, sizeof err), PERF__EINVAL);
  char *kept = st_slurp(path);
  ST_CHECK(kept && again && !strcmp(kept, again));
  free(saved), free(again), free(kept);
  perf__baseline_free(&a);
  perf__baseline_free(&b);
  st_rmtree(dir);
}

/* The shipped files, loaded and saved, are the same bytes (the update
 * rewrites them as they were): a file without work counts is written
 * without the key, one with them (the H200's) with its list as it was. */
ST_TEST(baseline_shipped_files_round_trip_unchanged_with_or_without_work_counts)
{
  static const char *const shipped[] = {"baselines/nvidia-h200.yaml",
                                        "baselines/nvidia-h100-80gb-hbm3.yaml",
                                        "baselines/intel-r-xeon-r-processor-16-cpus.yaml"};
  char err[400] = "", path[128];
  char *dir = temp_dir();
  ST_CHECK(dir != NULL);
  snprintf(path, sizeof path, "%s/copy.yaml", dir);
  for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
    perf__baseline b;
    ST_CHECKF(perf__blyaml_load(shipped[i], &b, err, sizeof err) == 0, "%s", err);
    ST_EQ(perf__blemit_save(path, &b, err, sizeof err), 0);
    char *was = st_slurp(shipped[i]), *now = st_slurp(path);
    ST_CHECKF(was && now && !strcmp(was, now), "%s changed", shipped[i]);
    ST_CHECKF(now && (b.nworks > 0) == (strstr(now, "\nwork:") != NULL), "%s: %zu work counts",
              shipped[i], b.nworks);
    free(was), free(now);
    perf__baseline_free(&b);
  }
  st_rmtree(dir);
}

/* A write that fails halfway (a NaN cannot be written) leaves the old file
 * byte for byte, and no temporary file behind. */
ST_TEST(baseline_failed_write_leaves_the_old_file)
{
  perf__baseline a;
  char err[400] = "", path[128];
  char *dir = temp_dir();
  snprintf(path, sizeof path, "%s/gpu.yaml", dir);
  ST_EQ(parse(good, &a, err), 0);
  ST_EQ(perf__blemit_save(path, &a, err, sizeof err), 0);
  char *before = st_slurp(path);
  a.entries[0].median_s = NAN;
  ST_EQ(perf__blemit_save(path, &a, err, sizeof err), PERF__EINVAL);
  ST_CHECK(strstr(err, "NaN") != NULL);
  char *after = st_slurp(path);
  ST_CHECK(before && after && !strcmp(before, after));
  /* nor is an SM clock the loader would refuse (its median above its max) */
  a.entries[0].median_s = 1e-5;
  a.entries[0].sm_clock = (perf__baseline_mhz){1980, 1755, 1900};
  ST_EQ(perf__blemit_save(path, &a, err, sizeof err), PERF__EINVAL);
  ST_CHECKF(strstr(err, "an SM clock outside its bounds") != NULL, "%s", err);
  free(after);
  after = st_slurp(path);
  ST_CHECK(before && after && !strcmp(before, after));
  int leftovers = 0;
  DIR *d = opendir(dir);
  for (struct dirent *de; d && (de = readdir(d));)
    leftovers += strstr(de->d_name, ".tmp.") != NULL;
  if (d) closedir(d);
  ST_EQ(leftovers, 0);
  /* a directory that does not exist: an error, nothing created */
  char nowhere[160];
  snprintf(nowhere, sizeof nowhere, "%s/missing/gpu.yaml", dir);
  ST_EQ(perf__blemit_save(nowhere, &a, err, sizeof err), PERF__EIO);
  free(before);
  free(after);
  perf__baseline_free(&a);
  st_rmtree(dir);
}

ST_TEST(baseline_merge_replaces_and_appends)
{
  perf__baseline b;
  perf__baseline_init(&b);
  perf__baseline_entry e = {.test = "s.t", .workload = "a", .clock = "wall",
                      .median_s = 1, .samples = 3, .tolerance = 0.05,
                      .recorded = "2026-01-01"};
  ST_EQ(perf__baseline_put_entry(&b, &e), 0);
  snprintf(e.workload, sizeof e.workload, "b");
  ST_EQ(perf__baseline_put_entry(&b, &e), 0);
  e.median_s = 2; /* re-measured b */
  ST_EQ(perf__baseline_put_entry(&b, &e), 0);
  ST_EQ(b.nentries, 2);
  ST_NEAR(perf__baseline_find(&b, "s.t", "a")->median_s, 1, 0); /* kept */
  ST_NEAR(perf__baseline_find(&b, "s.t", "b")->median_s, 2, 0); /* replaced */
  ST_CHECK(perf__baseline_find(&b, "s.t", "c") == NULL);
  ST_EQ(perf__baseline_set_fp(&b, "name", "x"), 0);
  ST_EQ(perf__baseline_set_fp(&b, "name", "y"), 0);
  ST_CHECK(b.nfp == 1 && !strcmp(b.fp[0].value, "y"));
  perf__baseline_free(&b);
}

ST_TEST(baseline_slugs_are_safe_file_names)
{
  char s[80];
  ST_CHECK(!strcmp(perf__baseline_slug("NVIDIA H100 80GB HBM3", s, sizeof s), "nvidia-h100-80gb-hbm3"));
  ST_CHECK(!strcmp(perf__baseline_slug("../../etc/passwd", s, sizeof s), "etc-passwd"));
  ST_CHECK(!strcmp(perf__baseline_slug("Intel(R) Xeon(R) CPU @ 2.20GHz", s, sizeof s), "intel-r-xeon-r-cpu-2-20ghz"));
  ST_CHECK(!strcmp(perf__baseline_slug("", s, sizeof s), "unknown"));
  ST_CHECK(!strcmp(perf__baseline_slug("../..", s, sizeof s), "unknown"));
  ST_CHECK(!strcmp(perf__baseline_slug(NULL, s, sizeof s), "unknown"));
  char longname[300];
  memset(longname, 'a', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  ST_CHECK(strlen(perf__baseline_slug(longname, s, sizeof s)) <= 64);
  ST_CHECK(!strchr(perf__baseline_slug("a/b.c\\d\xc3\xa9", s, sizeof s), '/') && !strchr(s, '.'));
}

ST_TEST(fingerprint_of_the_host_names_the_cpu)
{
  perf__baseline b;
  char path[300], slug[80];
  perf__baseline_init(&b);
  perf__machine_host(&b);
  const char *model = perf__baseline_model(&b);
  ST_CHECK(model[0] != '\0');
  ST_CHECK(b.nfp == 3 && !strcmp(b.fp[1].key, "cpus") && atoi(b.fp[1].value) >= 1);
  perf__baseline_slug(model, slug, sizeof slug);
  perf__baseline_path("some/dir", &b, path, sizeof path);
  char want[300];
  snprintf(want, sizeof want, "some/dir/%s-%s-cpus.yaml", slug, b.fp[1].value);
  ST_CHECK(!strcmp(path, want));
  perf__baseline none;
  perf__baseline_init(&none);
  ST_CHECK(!strcmp(perf__baseline_model(&none), "unknown"));
  ST_CHECK(!strcmp(perf__baseline_path("", &none, path, sizeof path), "./unknown.yaml"));
  perf__baseline_free(&b);
}

/* Loading is linear in the entries: lookups make a bounded number of key
 * comparisons per entry, at 2 000 entries as at 20 000 (the old loader
 * scanned every earlier entry for each: 10 000 per entry at 20 000). */
ST_TEST(baseline_loading_is_linear_in_entries)
{
  static const int sizes[] = {2000, 20000};
  for (int k = 0; k < 2; k++) {
    int n = sizes[k];
    size_t cap = (size_t)n * 200 + 100, len = 0;
    char *text = malloc(cap);
    ST_CHECK(text != NULL);
    if (!text) return;
    len += (size_t)snprintf(text + len, cap - len, "schema: 1\nentries:\n");
    for (int i = 0; i < n; i++)
      len += (size_t)snprintf(text + len, cap - len,
                              "- {test: s.t%d, workload: w%d, clock: events, median_s: 1e-05, "
                              "spread_s: 0, samples: 8, recorded: 2026-11-23}\n", i / 7, i);
    perf__baseline b;
    char err[400] = "";
    unsigned long long before = perf__baseline_key_compares();
    ST_EQ(parse(text, &b, err), 0);
    unsigned long long per = (perf__baseline_key_compares() - before) / (unsigned long long)n;
    ST_CHECKF(b.nentries == (size_t)n && per <= 4, "%d entries: %zu loaded, %llu compares each: %s",
              n, b.nentries, per, err);
    ST_CHECK(perf__baseline_find(&b, "s.t5", "w35") == &b.entries[35]);
    ST_CHECK(perf__baseline_find(&b, "s.t5", "w42") == NULL); /* w42 belongs to s.t6 */
    perf__baseline_free(&b);
    free(text);
  }
}

/* A version-1 file (no SM clock known) loads, its entries' clock unknown,
 * and a check against it says nothing about clocks whatever the clock
 * now. */
ST_TEST(baseline_version_1_loads_with_the_sm_clock_unknown)
{
  perf__baseline b;
  char err[400] = "", note[200] = "x";
  ST_EQ(parse(good, &b, err), 0);
  ST_EQ(b.schema, 1);
  const perf__baseline_entry *e = perf__baseline_find(&b, "sync_points.small_gemm", "async");
  ST_CHECK(e && e->sm_clock.median == 0 && e->sm_clock.min == 0 && e->sm_clock.max == 0);
  /* twice the time at half the clock: with a known clock, a note */
  ST_EQ(perf__baseline_clock_note(e, 2 * e->median_s, (perf__baseline_mhz){990, 990, 990}, note,
                                  sizeof note), 0);
  ST_STR(note, "");
  perf__baseline_free(&b);
}

/* The SM clock of samples: median, lowest and highest of the known ones
 * (0: NVML could not read it); none known is unknown. Runs merge into the
 * median of their medians and the widest bounds. */
ST_TEST(baseline_sm_clock_of_samples_and_runs)
{
  const unsigned odd[] = {0, 1980, 1755, 1980, 0}, even[] = {1980, 1965}, none[] = {0, 0};
  perf__baseline_mhz c = perf__baseline_mhz_of(odd, 5);
  ST_CHECK(c.median == 1980 && c.min == 1755 && c.max == 1980);
  c = perf__baseline_mhz_of(even, 2);
  ST_CHECK(c.median == 1973 && c.min == 1965 && c.max == 1980);
  c = perf__baseline_mhz_of(none, 2);
  ST_CHECK(c.median == 0 && c.min == 0 && c.max == 0);
  c = perf__baseline_mhz_of(NULL, 0);
  ST_CHECK(c.median == 0 && c.min == 0 && c.max == 0);
  const perf__baseline_mhz runs[] = {{1980, 1755, 1980}, {0, 0, 0}, {1965, 1950, 1995}};
  c = perf__baseline_mhz_merge(runs, 3);
  ST_CHECKF(c.median == 1973 && c.min == 1755 && c.max == 1995, "%u %u %u", c.median, c.min, c.max);
  c = perf__baseline_mhz_merge(runs + 1, 1);
  ST_CHECK(c.median == 0 && c.min == 0 && c.max == 0);
}

/* What the SM clock says on a check, as logic (no timing): the verdict is
 * decided on time alone; where the time moved beyond tolerance and the
 * cycles (time x clock) did not, the note says the clock moved and the
 * workload is unchanged in cycles; where both moved, it gives the cycles'
 * change too; where the time stayed and the cycles moved, it says so;
 * nothing with a clock unknown on either side, a clock that did not move,
 * or neither time nor cycles beyond tolerance. */
ST_TEST(baseline_sm_clock_note_logic)
{
  perf__baseline_entry base = {.median_s = 1e-3, .spread_s = 1e-6, .samples = 100,
                               .tolerance = 0.05, .sm_clock = {1980, 1980, 1980}};
  perf__baseline_entry unclocked = base;
  unclocked.sm_clock = (perf__baseline_mhz){0, 0, 0};
  const perf__baseline_mhz at1755 = {1755, 1740, 1770}, at1980 = {1980, 1980, 1980},
                           at1965 = {1965, 1965, 1965}, unknown = {0, 0, 0};
  char note[200];
  double rel, slow = 1e-3 * 1980 / 1755 * 1.002; /* +13.0 % in time, +0.2 % in cycles */
  /* time moved, cycles did not */
  ST_EQ(perf__baseline_clock_note(&base, slow, at1755, note, sizeof note), 1);
  ST_STR(note, "; the SM clock moved from 1980 to 1755 MHz (-11.4%): in cycles (time x SM clock) "
               "the workload is unchanged (+0.2%)");
  /* the verdict is still the time's: a regression, with or without clocks */
  ST_EQ(perf__blrule_compare(&base, slow, 1e-6, 100, &rel, NULL), PERF__BL_SLOWER);
  ST_EQ(perf__blrule_compare(&unclocked, slow, 1e-6, 100, &rel, NULL), PERF__BL_SLOWER);
  /* both moved: +25 % in time, +10.8 % in cycles */
  ST_EQ(perf__baseline_clock_note(&base, 1.25e-3, at1755, note, sizeof note), 1);
  ST_STR(note, "; the SM clock moved from 1980 to 1755 MHz (-11.4%); in cycles (time x SM clock) "
               "the workload changed too (+10.8%)");
  /* the time within tolerance, the clock faster: the cycles moved */
  perf__baseline_entry low = base;
  low.sm_clock = at1755;
  ST_EQ(perf__baseline_clock_note(&low, 1.0e-3, at1980, note, sizeof note), 1);
  ST_STR(note, "; the SM clock moved from 1755 to 1980 MHz (+12.8%); in cycles (time x SM clock) "
               "the workload changed by +12.8%");
  /* nothing to say */
  ST_EQ(perf__baseline_clock_note(&unclocked, slow, at1755, note, sizeof note), 0); /* unknown then */
  ST_STR(note, "");
  ST_EQ(perf__baseline_clock_note(&base, slow, unknown, note, sizeof note), 0);   /* unknown now */
  ST_STR(note, "");
  ST_EQ(perf__baseline_clock_note(&base, 1.3e-3, at1980, note, sizeof note), 0);  /* same clock */
  ST_STR(note, "");
  ST_EQ(perf__baseline_clock_note(&base, 1.3e-3, at1965, note, sizeof note), 0);  /* -0.8 %: a step */
  ST_STR(note, "");
  ST_EQ(perf__baseline_clock_note(&base, 1.02e-3, (perf__baseline_mhz){1940, 1940, 1940}, note,
                                  sizeof note), 0); /* -2 % clock, +2 % time: both within */
  ST_STR(note, "");
}

/* A bad value inside runs_s is named where it is, not at the list's '['. */
ST_TEST(baseline_runs_s_error_points_at_the_item)
{
  const char *text = "schema: 2\nfingerprint: {name: x}\nentries:\n- test: a.b\n  workload: w\n"
                     "  clock: events\n  median_s: 1e-5\n  spread_s: 0\n  samples: 8\n"
                     "  sm_clock_mhz: unknown\n  runs_s: [1e-5, abc, 2e-5]\n"
                     "  recorded: 2026-11-26\nratios: []\n";
  perf__baseline b;
  char err[400];
  ST_EQ(perf__blyaml_parse("x.yaml", (const unsigned char *)text, strlen(text), &b, err,
                             sizeof err), PERF__EBADFILE);
  ST_CHECKF(strstr(err, "x.yaml:11:18: ") && strstr(err, "'abc'"), "%s", err);
  /* an item with a space in it is one item, and not a number */
  const char *spaced = "schema: 2\nfingerprint: {name: x}\nentries:\n- test: a.b\n  workload: w\n"
                       "  clock: events\n  median_s: 1e-5\n  spread_s: 0\n  samples: 8\n"
                       "  sm_clock_mhz: unknown\n  runs_s: [1 2, 3 x]\n"
                       "  recorded: 2026-11-26\nratios: []\n";
  ST_EQ(perf__blyaml_parse("x.yaml", (const unsigned char *)spaced, strlen(spaced), &b, err,
                             sizeof err), PERF__EBADFILE);
  ST_CHECKF(strstr(err, "x.yaml:11:12: ") && strstr(err, "'1 2'"), "%s", err);
}

/* A runs_s of 10 000 items is refused for what it is, at the first item
 * past the limit: "at most 16", not "too long"; a list of 16 numbers each
 * written with many digits says how long a value may be instead. */
ST_TEST(baseline_a_long_runs_s_names_its_limit)
{
  enum { ITEMS = 10000 };
  const char *head = "schema: 2\nentries:\n- test: a.b\n  workload: w\n  clock: wall\n"
                     "  median_s: 1e-5\n  spread_s: 0\n  samples: 8\n  sm_clock_mhz: unknown\n"
                     "  runs_s: [";
  size_t cap = strlen(head) + ITEMS * 8 + 100, used = 0;
  char *text = malloc(cap), err[400];
  ST_CHECK(text != NULL);
  if (!text) return;
  used += (size_t)snprintf(text, cap, "%s", head);
  for (int i = 0; i < ITEMS; i++) used += (size_t)snprintf(text + used, cap - used, "%s1e-5", i ? ", " : "");
  snprintf(text + used, cap - used, "]\n  recorded: 2026-11-26\n");
  perf__baseline b;
  ST_EQ(parse(text, &b, err), PERF__EBADFILE);
  /* the 17th item: column 12 + 16 items of "1e-5, " */
  ST_CHECKF(strstr(err, "b.yaml:10:108: 'runs_s' holds too many values (at most 16)") &&
                !strstr(err, "too long"), "%s", err);
  used = (size_t)snprintf(text, cap, "%s", head);
  for (int i = 0; i < 16; i++)
    used += (size_t)snprintf(text + used, cap - used, "%s1.00000000000000000001e-5", i ? ", " : "");
  snprintf(text + used, cap - used, "]\n  recorded: 2026-11-26\n");
  ST_EQ(parse(text, &b, err), PERF__EBADFILE);
  ST_CHECKF(strstr(err, "'runs_s' is too long: a list may hold at most 255 characters; write "
                        "its numbers with fewer digits"), "%s", err);
  free(text);
}
