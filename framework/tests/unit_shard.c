/* unit_shard.c — the shard and run id from each engine's variables. */
/* The order that decides between engines, and what is refused. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/shard.h"
#include "util/status.h"
#include "selftest.h"

static const char *const vars[] = {
    "GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX", "JOB_COMPLETION_INDEX", "PERFGATE_TOTAL_SHARDS",
    "PERFGATE_RUN_ID", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP", "SLURM_ARRAY_JOB_ID", "SLURM_STEP_ID",
    "SLURM_PROCID", "SLURM_NTASKS", "SLURM_JOB_ID", "GITHUB_RUN_ID", "CI_PIPELINE_ID",
    "BUILDKITE_BUILD_ID"};

/* Clears every engine's variables, then sets the NAME=VALUE pairs of a
 * NULL-terminated list. */
static void given(const char *const *set)
{
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) unsetenv(vars[i]);
  for (; set && *set; set += 2) setenv(set[0], set[1], 1);
}

ST_TEST(shard_none_is_the_whole_run)
{
  perf__shard s;
  char err[600] = "";
  given(NULL);
  ST_EQ(perf__shard_from_env(&s, NULL, err, sizeof err), 0);
  ST_EQ(s.index, 0);
  ST_EQ(s.total, 1);
  ST_EQ(s.engine, PERF__SHARD_NONE);
  ST_STR(s.said, "");
  ST_STR(s.run_id, "");
}

/* Each engine alone: its index and total, what the run says, its run id. */
ST_TEST(shard_from_each_engine)
{
  perf__shard s;
  char err[600] = "";
  given((const char *const[]){"GTEST_TOTAL_SHARDS", "4", "GTEST_SHARD_INDEX", "3", NULL});
  ST_EQ(perf__shard_from_env(&s, NULL, err, sizeof err), 0);
  ST_EQ(s.index, 3);
  ST_EQ(s.total, 4);
  ST_STR(s.said, "shard 3 of 4 (from 0), from GoogleTest's GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX");
  given((const char *const[]){"JOB_COMPLETION_INDEX", "1", "PERFGATE_TOTAL_SHARDS", "3",
                              "PERFGATE_RUN_ID", "uid-1234", NULL});
  ST_EQ(perf__shard_from_env(&s, NULL, err, sizeof err), 0);
  ST_EQ(s.engine, PERF__SHARD_KUBERNETES);
  ST_EQ(s.index, 1);
  ST_EQ(s.total, 3);
  ST_STR(s.run_id, "uid-1234");
  /* --array=1-7:2: tasks 1, 3, 5, 7; task 5 is the third. */
  given((const char *const[]){"SLURM_ARRAY_TASK_ID", "5", "SLURM_ARRAY_TASK_COUNT", "4",
                              "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_MAX", "7",
                              "SLURM_ARRAY_TASK_STEP", "2", "SLURM_ARRAY_JOB_ID", "8812",
                              "SLURM_JOB_ID", "8815", NULL});
  ST_EQ(perf__shard_from_env(&s, NULL, err, sizeof err), 0);
  ST_EQ(s.engine, PERF__SHARD_SLURM_ARRAY);
  ST_EQ(s.index, 2);
  ST_EQ(s.total, 4);
  ST_STR(s.run_id, "8812"); /* the array's job id, shared by its tasks */
  given((const char *const[]){"SLURM_STEP_ID", "0", "SLURM_PROCID", "2", "SLURM_NTASKS", "8",
                              "SLURM_JOB_ID", "77", NULL});
  ST_EQ(perf__shard_from_env(&s, NULL, err, sizeof err), 0);
  ST_EQ(s.engine, PERF__SHARD_SLURM_STEP);
  ST_EQ(s.index, 2);
  ST_EQ(s.total, 8);
  ST_STR(s.run_id, "77");
  /* A batch script (no step) with --ntasks=4 is not sharded. */
  given((const char *const[]){"SLURM_PROCID", "0", "SLURM_NTASKS", "4", NULL});
  ST_EQ(perf__shard_from_env(&s, NULL, err, sizeof err), 0);
  ST_EQ(s.engine, PERF__SHARD_NONE);
  ST_EQ(s.total, 1);
  /* A CI's run id, the same for its every job and re-run attempt. */
  given((const char *const[]){"GTEST_TOTAL_SHARDS", "2", "GTEST_SHARD_INDEX", "1",
                              "GITHUB_RUN_ID", "99123", NULL});
  ST_EQ(perf__shard_from_env(&s, NULL, err, sizeof err), 0);
  ST_STR(s.run_id, "99123");
  given(NULL);
}

/* Several engines: the first in the documented order decides, the run
 * names the others as ignored. */
ST_TEST(shard_engine_order_decides_and_names_the_rest)
{
  perf__shard s;
  char err[600] = "";
  given((const char *const[]){"SLURM_ARRAY_TASK_ID", "0", "SLURM_ARRAY_TASK_COUNT", "2",
                              "SLURM_ARRAY_TASK_MIN", "0", "JOB_COMPLETION_INDEX", "0",
                              "PERFGATE_TOTAL_SHARDS", "5", "SLURM_STEP_ID", "0",
                              "SLURM_PROCID", "0", "SLURM_NTASKS", "1", NULL});
  ST_EQ(perf__shard_from_env(&s, NULL, err, sizeof err), 0);
  ST_EQ(s.engine, PERF__SHARD_KUBERNETES);
  ST_EQ(s.total, 5);
  ST_CHECKF(strstr(s.said, "; ignored: a Slurm job array's SLURM_ARRAY_TASK_ID, a Slurm step's"),
            "%s", s.said);
}

/* Refused, each with its reason: half-set pairs, an index out of range,
 * a Kubernetes index without its total, a list array, a bad number. */
ST_TEST(shard_refuses_what_cannot_be_split)
{
  static const struct {
    const char *set[12];
    const char *says;
  } bad[] = {
      {{"GTEST_SHARD_INDEX", "1", NULL}, "GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX must both be set"},
      {{"GTEST_TOTAL_SHARDS", "2", "GTEST_SHARD_INDEX", "2", NULL}, "0 <= GTEST_SHARD_INDEX <"},
      {{"GTEST_TOTAL_SHARDS", "x", "GTEST_SHARD_INDEX", "0", NULL},
       "GTEST_TOTAL_SHARDS='x' is not a whole number"},
      {{"JOB_COMPLETION_INDEX", "3", NULL}, "PERFGATE_TOTAL_SHARDS is not"},
      {{"PERFGATE_TOTAL_SHARDS", "3", NULL}, "PERFGATE_TOTAL_SHARDS and JOB_COMPLETION_INDEX must both"},
      {{"SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_COUNT", "3", "SLURM_ARRAY_TASK_MIN", "1",
        "SLURM_ARRAY_TASK_MAX", "9", NULL},
       "an array given as a list such as 1,4,9 cannot be split"},
      {{"SLURM_ARRAY_TASK_ID", "4", NULL}, "without SLURM_ARRAY_TASK_COUNT"},
      {{"SLURM_ARRAY_TASK_ID", "-1", "SLURM_ARRAY_TASK_COUNT", "3", "SLURM_ARRAY_TASK_MIN", "0",
        NULL},
       "SLURM_ARRAY_TASK_ID='-1' is not a whole number"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    perf__shard s;
    char err[600] = "";
    given(bad[i].set);
    ST_EQ(perf__shard_from_env(&s, NULL, err, sizeof err), PERF__EUSAGE);
    ST_CHECKF(strstr(err, bad[i].says), "case %zu: %s", i, err);
  }
  given(NULL);
}

/* A run id from the environment follows the rule --run-id follows (the
 * label rule of commits and branches): kept whole up to PERF__LABEL_MAX
 * bytes, so that ids sharing their first 95 bytes stay two runs; anything
 * else refused, naming the variable, never cut. --run-id, when given,
 * is the run id and no variable is read. */
ST_TEST(shard_run_id_from_the_environment_is_whole_or_refused)
{
  perf__shard s;
  char err[600] = "", p95[96], id[PERF__LABEL_MAX + 8];
  memset(p95, 'p', 95), p95[95] = '\0';
  for (int k = 1; k <= 2; k++) { /* <95 p>RUN1, <95 p>RUN2: two runs */
    snprintf(id, sizeof id, "%sRUN%d", p95, k);
    given((const char *const[]){"GTEST_TOTAL_SHARDS", "2", "GTEST_SHARD_INDEX", "0", "PERFGATE_RUN_ID", id, NULL});
    ST_EQ(perf__shard_from_env(&s, NULL, err, sizeof err), 0);
    ST_STR(s.run_id, id);
    ST_STR(s.run_id_from, "PERFGATE_RUN_ID");
  }
  memset(id, 'q', PERF__LABEL_MAX), id[PERF__LABEL_MAX] = '\0'; /* the longest: whole */
  given((const char *const[]){"GITHUB_RUN_ID", id, NULL});
  ST_EQ(perf__shard_from_env(&s, NULL, err, sizeof err), 0);
  ST_EQ(strlen(s.run_id), PERF__LABEL_MAX);
  ST_STR(s.run_id_from, "GITHUB_RUN_ID");
  char longer[PERF__LABEL_MAX + 16];
  snprintf(longer, sizeof longer, "%sz", id);
  static const char *const array[] = {"SLURM_ARRAY_TASK_ID", "0", "SLURM_ARRAY_TASK_COUNT", "2",
                                      "SLURM_ARRAY_TASK_MIN", "0"};
  static const char *const step[] = {"SLURM_STEP_ID", "0", "SLURM_PROCID", "0", "SLURM_NTASKS", "2"};
  const struct {
    const char *const *engine; /* 6 strings, or NULL */
    const char *var, *value, *says;
  } bad[] = {
      {NULL, "PERFGATE_RUN_ID", "run-7 ", "PERFGATE_RUN_ID (the run id; --run-id=ID overrides it): a space at its "
                                          "start or end: 'run-7 '"},
      {array, "SLURM_ARRAY_JOB_ID", "88\n12", "SLURM_ARRAY_JOB_ID (the run id; --run-id=ID overrides it): a "
                                              "control character: '88\\n12'"},
      {step, "SLURM_JOB_ID", "77\xff", "SLURM_JOB_ID (the run id; --run-id=ID overrides it): not valid UTF-8: "
                                      "'77\\xff'"},
      {NULL, "GITHUB_RUN_ID", longer, "GITHUB_RUN_ID (the run id; --run-id=ID overrides it): 121 bytes, more "
                                      "than the 120 a label may have: 'qqqq"},
      {NULL, "CI_PIPELINE_ID", " 5", "CI_PIPELINE_ID (the run id; --run-id=ID overrides it): a space"},
      {NULL, "BUILDKITE_BUILD_ID", "b\tk", "BUILDKITE_BUILD_ID (the run id; --run-id=ID overrides it): a "
                                           "control character: 'b\\tk'"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *set[10] = {NULL};
    for (int k = 0; bad[i].engine && k < 6; k++) set[k] = bad[i].engine[k];
    size_t n = bad[i].engine ? 6 : 0;
    set[n] = bad[i].var, set[n + 1] = bad[i].value;
    given(set);
    err[0] = '\0';
    ST_EQ(perf__shard_from_env(&s, NULL, err, sizeof err), PERF__EUSAGE);
    ST_CHECKF(!strncmp(err, bad[i].says, strlen(bad[i].says)), "case %zu: %s", i, err);
  }
  /* The first variable set decides: a bad one is not passed over. */
  given((const char *const[]){"PERFGATE_RUN_ID", "x ", "GITHUB_RUN_ID", "42", NULL});
  ST_EQ(perf__shard_from_env(&s, NULL, err, sizeof err), PERF__EUSAGE);
  /* An engine's variable names only that engine's runs: outside a Slurm
   * step SLURM_JOB_ID is no run id, whatever it holds. */
  given((const char *const[]){"SLURM_JOB_ID", "x ", "GITHUB_RUN_ID", "42", NULL});
  ST_EQ(perf__shard_from_env(&s, NULL, err, sizeof err), 0);
  ST_STR(s.run_id, "42");
  /* --run-id is the run id: no variable is read. */
  given((const char *const[]){"PERFGATE_RUN_ID", "x ", NULL});
  ST_EQ(perf__shard_from_env(&s, "r9", err, sizeof err), 0);
  ST_STR(s.run_id, "r9");
  ST_STR(s.run_id_from, "--run-id");
  given(NULL);
}
