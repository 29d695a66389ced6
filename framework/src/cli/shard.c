/* shard.c — which shard of the tests this process runs, and which run it belongs to. */
/* Read from the engine that started it (GoogleTest's variables, a Kubernetes
 * Indexed Job, a Slurm array, a Slurm step), in one documented order. */
#include "cli/shard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/label.h"
#include "util/status.h"

/* v's value, or NULL when it is unset or empty. Never fails. */
static const char *env(const char *v)
{
  const char *s = getenv(v);
  return s && *s ? s : NULL;
}

/* Reads the whole number >= 0 in variable v into *out (-1 when unset).
 * Returns 0, or PERF__EUSAGE naming v and its value in err[len]. */
static int whole(const char *v, long *out, char *err, size_t len)
{
  const char *s = env(v);
  *out = -1;
  if (!s) return 0;
  char *end;
  errno = 0;
  long n = strtol(s, &end, 10);
  if (*s < '0' || *s > '9' || *end || errno) {
    snprintf(err, len, "%s='%s' is not a whole number", v, s);
    return PERF__EUSAGE;
  }
  *out = n;
  return 0;
}

/* index of total, with index and total read from the variables iv and tv
 * (both must be set, 0 <= index < total). Returns 0, or PERF__EUSAGE with
 * the reason in err[len]. */
static int pair(perf__shard *s, const char *iv, const char *tv, char *err, size_t len)
{
  if (whole(iv, &s->index, err, len) || whole(tv, &s->total, err, len)) return PERF__EUSAGE;
  if (s->index >= 0 && s->total >= 1 && s->index < s->total) return 0;
  snprintf(err, len, "%s and %s must both be set, with 0 <= %s < %s (%s=%s, %s=%s)", tv, iv, iv,
           tv, tv, env(tv) ? env(tv) : "unset", iv, env(iv) ? env(iv) : "unset");
  return PERF__EUSAGE;
}

static int set_gtest(void) { return env("GTEST_TOTAL_SHARDS") || env("GTEST_SHARD_INDEX"); }
static int read_gtest(perf__shard *s, char *err, size_t len)
{
  return pair(s, "GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS", err, len);
}

static int set_kubernetes(void)
{
  return env("JOB_COMPLETION_INDEX") || env("PERFGATE_TOTAL_SHARDS");
}
static int read_kubernetes(perf__shard *s, char *err, size_t len)
{
  if (env("JOB_COMPLETION_INDEX") && !env("PERFGATE_TOTAL_SHARDS")) {
    snprintf(err, len, "JOB_COMPLETION_INDEX=%s is set but PERFGATE_TOTAL_SHARDS is not: "
             "Kubernetes gives an Indexed Job's index, not its completions; set "
             "PERFGATE_TOTAL_SHARDS to the Job's .spec.completions", env("JOB_COMPLETION_INDEX"));
    return PERF__EUSAGE;
  }
  return pair(s, "JOB_COMPLETION_INDEX", "PERFGATE_TOTAL_SHARDS", err, len);
}

static int set_slurm_array(void) { return env("SLURM_ARRAY_TASK_ID") != NULL; }
/* The task's place in an array min-max:step of count tasks. A list
 * (1,4,9) is no such range: refused, since its tasks could not be told
 * apart from a range's gaps. */
static int read_slurm_array(perf__shard *s, char *err, size_t len)
{
  long id, count, min, max, step;
  if (whole("SLURM_ARRAY_TASK_ID", &id, err, len) ||
      whole("SLURM_ARRAY_TASK_COUNT", &count, err, len) ||
      whole("SLURM_ARRAY_TASK_MIN", &min, err, len) ||
      whole("SLURM_ARRAY_TASK_MAX", &max, err, len) ||
      whole("SLURM_ARRAY_TASK_STEP", &step, err, len))
    return PERF__EUSAGE;
  if (count < 1 || min < 0) {
    snprintf(err, len, "SLURM_ARRAY_TASK_ID=%ld is set without SLURM_ARRAY_TASK_COUNT and "
             "SLURM_ARRAY_TASK_MIN (Slurm sets all three in an array's tasks)", id);
    return PERF__EUSAGE;
  }
  if (step < 1) step = 1;
  long last = min + step * (count - 1);
  if (id < min || (id - min) % step || id > last || (max >= 0 && max != last)) {
    snprintf(err, len, "the Slurm job array is not a range (tasks %ld..%ld, %ld of them, step "
             "%ld; this is task %ld): an array given as a list such as 1,4,9 cannot be split "
             "into shards; submit a range, e.g. --array=0-%ld (or FIRST-LAST:STEP)", min,
             max >= 0 ? max : last, count, step, id, count - 1);
    return PERF__EUSAGE;
  }
  s->index = (id - min) / step;
  s->total = count;
  return 0;
}

static int set_slurm_step(void) { return env("SLURM_STEP_ID") && env("SLURM_PROCID"); }
static int read_slurm_step(perf__shard *s, char *err, size_t len)
{
  return pair(s, "SLURM_PROCID", "SLURM_NTASKS", err, len);
}

static const struct engine {
  int (*set)(void);
  int (*read)(perf__shard *s, char *err, size_t len);
} engines[] = {
    {set_gtest, read_gtest},
    {set_kubernetes, read_kubernetes},
    {set_slurm_array, read_slurm_array},
    {set_slurm_step, read_slurm_step},
};
_Static_assert(sizeof engines / sizeof engines[0] == PERF__SHARD_NENGINES,
               "a row of engines[] for each PERF__SHARD_ENGINES row, in its order");

static const char *const what[] = {
#define PERF__X(e, w) w,
    PERF__SHARD_ENGINES(PERF__X)
#undef PERF__X
};

/* The variables a run id is read from, in order: X(variable, engine
 * whose runs alone it names, NONE for any). PERFGATE_RUN_ID is set on
 * purpose; the engine's next; then a CI's run, the same for every job of
 * it and every re-run attempt. */
#define PERF__SHARD_RUN_IDS(X)        \
  X("PERFGATE_RUN_ID", NONE)          \
  X("SLURM_ARRAY_JOB_ID", SLURM_ARRAY) \
  X("SLURM_JOB_ID", SLURM_STEP)       \
  X("GITHUB_RUN_ID", NONE)            \
  X("CI_PIPELINE_ID", NONE)           \
  X("BUILDKITE_BUILD_ID", NONE)

/* The run's id into s: given, else the first variable that names it for
 * s's engine, whole. Returns 0, or PERF__EUSAGE when the label rule
 * refuses it, naming the variable, in err[len] (nothing is cut: an id
 * longer than the rule allows is refused). */
static int run_id(perf__shard *s, const char *given, char *err, size_t len)
{
  static const struct {
    const char *var;
    perf__shard_engine engine;
  } from[] = {
#define PERF__X(v, e) {v, PERF__SHARD_##e},
      PERF__SHARD_RUN_IDS(PERF__X)
#undef PERF__X
  };
  const char *id = given, *var = given ? "--run-id" : NULL;
  for (size_t i = 0; !id && i < sizeof from / sizeof from[0]; i++)
    if (from[i].engine == PERF__SHARD_NONE || from[i].engine == s->engine)
      if ((id = env(from[i].var))) var = from[i].var;
  if (!id) return 0;
  char what[160];
  snprintf(what, sizeof what, "%s (the run id%s)", var, given ? "" : "; --run-id=ID overrides it");
  if (perf__label_check(what, id, err, len)) return PERF__EUSAGE;
  _Static_assert(sizeof s->run_id > PERF__LABEL_MAX, "a run id the rule allows fits whole");
  snprintf(s->run_id, sizeof s->run_id, "%s", id);
  s->run_id_from = var;
  return 0;
}

/* See shard.h. */
int perf__shard_from_env(perf__shard *s, const char *given, char *err, size_t len)
{
  *s = (perf__shard){.index = 0, .total = 1, .engine = PERF__SHARD_NONE};
  for (int e = 0; e < PERF__SHARD_NENGINES; e++) {
    if (!engines[e].set()) continue;
    if (s->engine != PERF__SHARD_NONE) { /* set too, and ignored */
      size_t u = strlen(s->said);
      snprintf(s->said + u, sizeof s->said - u, "%s%s", strstr(s->said, "; ignored: ") ? ", " :
               "; ignored: ", what[e]);
      continue;
    }
    if (engines[e].read(s, err, len)) return PERF__EUSAGE;
    s->engine = (perf__shard_engine)e;
    snprintf(s->said, sizeof s->said, "shard %ld of %ld (from 0), from %s", s->index, s->total,
             what[e]);
  }
  return run_id(s, given, err, len);
}
