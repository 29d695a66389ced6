/* shard.h — which shard of the tests this process runs, and which run it belongs to. */
#ifndef PERF_SHARD_H
#define PERF_SHARD_H

#include <stddef.h>

#include "util/label.h"

/* The engines, in the order that decides when several have set their
 * variables (the first whose variables are set wins; the others are named
 * as ignored): X(engine, what the run says it used). GoogleTest's
 * variables come first because a person or a CI file sets them on
 * purpose; a Kubernetes Indexed Job next (its index needs
 * PERFGATE_TOTAL_SHARDS: Kubernetes puts no total in the environment);
 * then a Slurm job array (its tasks a range, min-max[:step]); then the
 * tasks of one Slurm step (srun: SLURM_PROCID of SLURM_NTASKS, only where
 * SLURM_STEP_ID says this is a step, so that a batch script with
 * --ntasks=4 that runs perftest once does not run a quarter of it). */
#define PERF__SHARD_ENGINES(X)                   \
  X(GTEST, "GoogleTest's GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX") \
  X(KUBERNETES, "a Kubernetes Indexed Job's JOB_COMPLETION_INDEX and PERFGATE_TOTAL_SHARDS") \
  X(SLURM_ARRAY, "a Slurm job array's SLURM_ARRAY_TASK_ID")        \
  X(SLURM_STEP, "a Slurm step's SLURM_PROCID and SLURM_NTASKS")

typedef enum perf__shard_engine {
  PERF__SHARD_NONE = -1,
#define PERF__X(e, what) PERF__SHARD_##e,
  PERF__SHARD_ENGINES(PERF__X)
#undef PERF__X
  PERF__SHARD_NENGINES
} perf__shard_engine;

typedef struct perf__shard {
  long index, total;         /* 0 of 1 when no engine shards the run */
  perf__shard_engine engine; /* PERF__SHARD_NONE: none */
  char said[400];            /* "shard 2 of 4 (from 0), from a Slurm job array's ...": the
                                index as GTEST_SHARD_INDEX and --merge count,
                                and the engines ignored; "" when none */
  char run_id[PERF__LABEL_MAX + 1]; /* the run all shards share, whole (an id the
                                label rule refuses is an error, never cut):
                                --run-id, else PERFGATE_RUN_ID, else the
                                engine's (SLURM_ARRAY_JOB_ID, SLURM_JOB_ID),
                                else the CI's (GITHUB_RUN_ID, CI_PIPELINE_ID,
                                BUILDKITE_BUILD_ID: the same for each job
                                and each re-run attempt); "" when none */
  const char *run_id_from;   /* what gave it: "--run-id" or the variable's
                                name; NULL when none */
} perf__shard;

/* Reads the shard from getenv, and the run id: given (--run-id, which
 * the options checked) when not NULL, else the first variable of the
 * list above that is set (to more than ""), checked by the label rule of
 * commits and branches (util/label.h). Returns 0, or PERF__EUSAGE with
 * the reason in err[len]: an engine's variables half set or malformed
 * (not a whole number, index outside 0..total-1), a Kubernetes index
 * without PERFGATE_TOTAL_SHARDS, a Slurm array that is a list (1,4,9)
 * rather than a range with a step; a run id the rule refuses (longer than
 * PERF__LABEL_MAX bytes, not UTF-8, a control character, a space at
 * either end), naming its variable. */
int perf__shard_from_env(perf__shard *s, const char *given, char *err, size_t len);

#endif
