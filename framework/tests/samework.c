/* samework.c — PERF_EXPECT_SAME_WORK end to end: recorded, the same, a planted 5 % caught. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/baseline.h"
#include "baseline/blyaml.h"
#include "selftest.h"

enum { LINE = 2048 };

static const char *const kernel = "--filter=work.same_work_of_a_kernel";

/* Runs the fixture with the baseline directory dir, env and more. */
static int run(st_run *r, const char *env, const char *dir, const char *more)
{
  char args[600];
  snprintf(args, sizeof args, "--color=never --baseline-dir=%s %s", dir, more);
  st_exec(r, env, args);
  return r->status;
}

/* The work count of the kernel's claim in dir's GPU file (0: none). */
static double recorded(const char *dir)
{
  char args[700], path[600], err[400];
  st_run r;
  st_exec(&r, "", (snprintf(args, sizeof args, "--print-baseline-file --baseline-dir=%s", dir),
                   args));
  snprintf(path, sizeof path, "%.*s", r.out ? (int)strcspn(r.out, "\n") : 0, r.out ? r.out : "");
  st_run_free(&r);
  perf__baseline b;
  if (perf__blyaml_load(path, &b, err, sizeof err)) {
    ST_CHECKF(0, "%s: %s", path, err);
    return 0;
  }
  const perf__baseline_work *w = perf__baseline_find_work(&b, "work.same_work_of_a_kernel", "k");
  double insts = w ? w->insts : 0;
  perf__baseline_free(&b);
  return insts;
}

/* Its verdict line after a check with env: the word it must carry. */
static void check(const char *dir, const char *env, int status, const char *word)
{
  st_run r;
  char line[LINE];
  ST_EQ(run(&r, env, dir, kernel), status);
  ST_CHECKF(st_line_with(&r, "SAME_WORK(k) at", word, line, sizeof line), "%s: %s", word, r.out);
  st_run_free(&r);
}

/* Without a baseline the check is skipped, saying so; an update records
 * the kernel's count (the same in its 5 runs); a check then passes, and
 * fails with 5 % more blocks or 5 % fewer (each block runs the same
 * instructions: the count moves by 5 %, whatever the machine's noise).
 * Without a GPU the test skips; where the counters cannot be read, too. */
ST_TEST(samework_records_then_passes_and_catches_five_percent_either_way)
{
  char dir[] = "/tmp/perfgate-samework-XXXXXX", line[LINE];
  ST_CHECK(mkdtemp(dir) != NULL);
  st_run r;
  run(&r, "", dir, kernel);
  if (!st_have_gpu()) {
    st_expect(&r, "work.same_work_of_a_kernel", "SKIP", "skipped: no CUDA device (");
    st_run_free(&r);
    st_rmtree(dir);
    return;
  }
  if (st_line_with(&r, "counters cannot be read here", NULL, line, sizeof line)) {
    st_run_free(&r);
    st_rmtree(dir);
    st_skip("the GPU's counters cannot be read here (%s)", line);
    return;
  }
  ST_CHECKF(st_line_with(&r, "SAME_WORK(k) at", "SKIPPED: no baseline file", line, sizeof line),
            "%s", r.out);
  st_run_free(&r);
  ST_EQ(run(&r, "", dir, "--update-baselines --filter=work.same_work_of_a_kernel"), 0);
  ST_CHECKF(st_line_with(&r, "SAME_WORK(k) at", "RECORDED: ", line, sizeof line), "%s", r.out);
  st_run_free(&r);
  ST_CHECKF(recorded(dir) > 0, "no work count in %s", dir);
  check(dir, "", 0, ": PASS: ");
  check(dir, "PERFGATE_FIXTURE_MORE_WORK=5 ", 1, ": FAIL: ");
  check(dir, "PERFGATE_FIXTURE_MORE_WORK=-5 ", 1, ": FAIL: ");
  st_rmtree(dir);
}

/* A workload with no GPU work has nothing to count: an ERROR naming it. */
ST_TEST(samework_of_host_work_is_an_error)
{
  char dir[] = "/tmp/perfgate-samework-XXXXXX";
  ST_CHECK(mkdtemp(dir) != NULL);
  st_run r;
  run(&r, "", dir, "--filter=work.same_work_of_host_work");
  int unreadable = strstr(r.out ? r.out : "", "counters cannot be read here") != NULL;
  if (!st_have_gpu())
    st_expect(&r, "work.same_work_of_host_work", "SKIP", "skipped: no CUDA device (");
  else if (!unreadable)
    st_expect(&r, "work.same_work_of_host_work", "ERROR", "ran no GPU instruction");
  st_run_free(&r);
  st_rmtree(dir);
  if (unreadable) st_skip("the GPU's counters cannot be read here");
}
