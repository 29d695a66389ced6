/* baseline_flow.c — the host-only baseline flow end to end: missing, record, re-run, regression, bad files. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/baseline.h"
#include "selftest.h"

#define LINE 2048

/* Sets every entry's tolerance (the per-entry override) to tol. */
static void set_tolerance(const char *path, double tol)
{
  perf__baseline b;
  char err[400];
  ST_EQ(perf__baseline_load(path, &b, err, sizeof err), 0);
  for (size_t i = 0; i < b.nentries; i++) b.entries[i].tolerance = tol;
  ST_EQ(perf__baseline_save(path, &b, err, sizeof err), 0);
  perf__baseline_free(&b);
}

static int run(st_run *r, const char *env, const char *dir, const char *more)
{
  char args[600];
  snprintf(args, sizeof args, "--color=never --baseline-dir=%s %s", dir, more);
  st_exec(r, env, args);
  return r->status;
}

ST_TEST(baseline_flow_record_rerun_and_planted_regression)
{
  char dir[] = "/tmp/perfgate-flow-XXXXXX", path[600], line[LINE];
  ST_CHECK(mkdtemp(dir) != NULL);
  st_host_baseline_file(dir, path, sizeof path);
  st_run r;
  /* no baseline yet: one notice, the check skipped, exit 0 (2 if strict) */
  ST_EQ(run(&r, "", dir, "--filter=bl.host_work"), 0);
  ST_CHECK(st_line_with(&r, "note  no baseline for this machine", path, line, sizeof line));
  ST_CHECK(strstr(r.out, "SKIP  bl.host_work") != NULL);
  st_run_free(&r);
  ST_EQ(run(&r, "", dir, "--filter=bl.host_work --strict-baselines"), 2);
  st_run_free(&r);
  /* record: 3 runs, a table of what moved, the file written */
  ST_EQ(run(&r, "", dir, "--update-baselines --filter='bl.*'"), 0);
  ST_CHECK(st_line_with(&r, "run 3 of 3", NULL, line, sizeof line));
  ST_CHECK(st_line_with(&r, "bl.host_work", " new ", line, sizeof line));
  ST_CHECK(st_line_with(&r, "FASTER(a, b, 2)", NULL, line, sizeof line));
  st_run_free(&r);
  perf__baseline b;
  char err[400];
  ST_EQ(perf__baseline_load(path, &b, err, sizeof err), 0);
  ST_CHECKF(b.nentries == 3 && b.nratios == 1, "%zu entries, %zu ratios", b.nentries, b.nratios);
  const perf__baseline_entry *e = perf__baseline_find(&b, "bl.host_work", "w");
  ST_CHECK(e && e->samples >= 3 * 8 && e->tolerance >= 0.05 && !strcmp(e->clock, "wall"));
  perf__baseline_free(&b);
  /* Re-runs compare absolute times across runs, and what else the machine
   * runs may change between them (a busy sibling CPU, another build): the
   * tolerance (the per-entry override) lets a re-run take up to twice the
   * recorded time (three times under valgrind, whose translation makes
   * early samples slow), and the planted changes are 8x the work, four
   * times beyond it. */
  set_tolerance(path, st_slow() ? 2.0 : 1.0);
  ST_EQ(run(&r, "", dir, "--filter='bl.*' --baseline-check=all"), 0);
  ST_CHECK(st_line_with(&r, "BASELINE(w) at", ": PASS", line, sizeof line));
  ST_CHECK(st_line_with(&r, "BASELINE(a) (--baseline-check=all): PASS", NULL, line, sizeof line));
  ST_CHECK(st_line_with(&r, "BASELINE(b) (--baseline-check=all): PASS", NULL, line, sizeof line));
  st_run_free(&r);
  /* a planted 8x slowdown fails as a regression */
  ST_EQ(run(&r, "PERFGATE_FIXTURE_SLOWDOWN=8 ", dir, "--filter=bl.host_work"), 1);
  ST_CHECK(st_line_with(&r, "BASELINE(w) at", ": FAIL (regression)", line, sizeof line));
  st_run_free(&r);
  /* Faster beyond tolerance is an improvement: a pass, unless
   * --strict-improvements. Record 8x the work, then run the normal one
   * (the tolerance: twice as fast). */
  ST_EQ(run(&r, "PERFGATE_FIXTURE_SLOWDOWN=8 ", dir, "--update-baselines --filter=bl.host_work"), 0);
  st_run_free(&r);
  set_tolerance(path, 0.5);
  ST_EQ(run(&r, "", dir, "--filter=bl.host_work"), 0);
  ST_CHECK(st_line_with(&r, "BASELINE(w) at", ": PASS (improvement)", line, sizeof line));
  st_run_free(&r);
  ST_EQ(run(&r, "", dir, "--filter=bl.host_work --strict-improvements"), 1);
  ST_CHECK(st_line_with(&r, "BASELINE(w) at", ": FAIL (improvement)", line, sizeof line));
  st_run_free(&r);
  /* a failed test: nothing written, unless --force */
  set_tolerance(path, 0.5);
  char *before = st_slurp(path);
  ST_EQ(run(&r, "", dir, "--update-baselines --filter='bl.host_work:host.falsehood'"), 1);
  ST_CHECK(st_line_with(&r, "nothing written", NULL, line, sizeof line));
  char *after = st_slurp(path);
  ST_CHECK(before && after && !strcmp(before, after)); /* untouched */
  free(after);
  st_run_free(&r);
  ST_EQ(run(&r, "", dir, "--update-baselines --force --filter='bl.host_work:host.falsehood'"), 1);
  after = st_slurp(path);
  ST_CHECK(after && strcmp(before, after) != 0); /* written anyway */
  ST_CHECK(strstr(after, "bl.ratio_claim") != NULL); /* kept, not re-measured */
  free(before);
  free(after);
  st_run_free(&r);
  st_rmtree(dir);
}

ST_TEST(baseline_flow_malformed_file_exits_2_untouched)
{
  char dir[] = "/tmp/perfgate-bad-XXXXXX", path[600], line[LINE];
  ST_CHECK(mkdtemp(dir) != NULL);
  st_host_baseline_file(dir, path, sizeof path);
  FILE *f = fopen(path, "w");
  ST_CHECK(f != NULL);
  fputs("schema: 1\nentries:\n- {test: bl.host_work, workload: w, median_s: -1}\n", f);
  fclose(f);
  char *before = st_slurp(path);
  st_run r;
  ST_EQ(run(&r, "", dir, "--filter=bl.host_work"), 2);
  char where[700];
  snprintf(where, sizeof where, "%s:3:", path);
  ST_CHECKF(st_line_with(&r, where, "lacks 'clock'", line, sizeof line) != NULL, "%s", r.out);
  st_run_free(&r);
  ST_EQ(run(&r, "", dir, "--update-baselines --filter=bl.host_work"), 2);
  ST_CHECK(strstr(r.out, "nothing written") || strstr(r.out, "baselines not written"));
  ST_CHECK(st_line_with(&r, where, "lacks", line, sizeof line) != NULL);
  char *after = st_slurp(path);
  ST_CHECK(before && after && !strcmp(before, after));
  free(before);
  free(after);
  st_run_free(&r);
  st_rmtree(dir);
}
