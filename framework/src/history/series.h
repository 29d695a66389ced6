/* series.h — the history read back as per-GPU series of medians and ratios, by commit or run. */
/* A workload's series holds its medians, a ratio claim's its ratios. */
#ifndef PERF_SERIES_H
#define PERF_SERIES_H

#include <stddef.h>

#include "history/store.h"

/* What to read. */
typedef struct perf__series_query {
  const char *filter;  /* tests, as --filter (NULL: all) */
  const char *gpu;     /* only this GPU's runs (NULL: every GPU) */
  const char *branch;  /* only this branch's runs (NULL: every branch) */
  size_t last;         /* only the runs of each GPU's newest this many commits
                          (with per_run, its newest this many runs; 0: all) */
  long long through;   /* only runs up to this id (0: all) */
  int per_run;         /* a point per run, not per commit */
  int fit_only;        /* only runs recorded on a fit runner (their unfit
                          '' or NULL; a history before schema 4: all) */
} perf__series_query;

/* The x axis of one GPU: its commits in the order first recorded (by the
 * runs' ids, not their clocks, which may disagree between runners), or
 * its runs (per_run). */
typedef struct perf__series_axis {
  char *gpu;
  char **commit;       /* n of them */
  char **started;      /* the first run's start (ISO 8601 UTC) */
  long long *run;      /* the first run's id */
  size_t n, cap;
} perf__series_axis;

/* One point: the median of the values recorded at one commit (several
 * runs, or a workload measured for several claims), and the medians of
 * their intervals' ends. */
typedef struct perf__series_point {
  size_t at;           /* index on the axis */
  double value, lo, hi;
  size_t nvalues;
} perf__series_point;

typedef struct perf__series {
  size_t axis;         /* index into the set's axes */
  int is_claim;        /* 0: a workload's median (seconds); 1: a claim's ratio */
  char *test;
  char *name;          /* the workload, or "FASTER(a, b)" */
  char *clock;
  char *sweep;         /* "n=4096" in a sweep, else NULL */
  char *kind;          /* claims: "FASTER" or "SIMILAR"; workloads: NULL */
  double threshold;    /* claims: the factor or tolerance */
  perf__series_point *pts; /* in axis order */
  size_t n;
  /* Raw values before perf__series_load groups them (internal). */
  double *raw;
  size_t nraw, capraw;
} perf__series;

typedef struct perf__series_set {
  perf__series_axis *axes;
  size_t naxes;
  perf__series *s;
  size_t n, cap;
  size_t runs;         /* runs read, as --commit-report counts them: one run id's
                          shards on one GPU are one run */
  size_t shards;       /* what was recorded of them: each shard's last attempt
                          (a run of one shard, or without a run id, is one) */
  /* Internal: key -> series index. */
  size_t *slots;
  size_t nslots;
} perf__series_set;

/* Reads q's series from the store into *set (emptied first). Returns 0 or
 * a negative PERF__ code with the reason in err[len]; set is then empty. */
int perf__series_load(perf__store *s, const perf__series_query *q, perf__series_set *set,
                      char *err, size_t len);

/* A column perf__series_values lists. */
typedef enum perf__series_column { PERF__SERIES_BRANCH, PERF__SERIES_GPU } perf__series_column;

/* The branches (or GPUs) the store's runs were recorded on, most runs
 * first, as "'main' (12 runs), 'dev' (1 run), no branch (3 runs)" (the
 * first 10, then "and more"), into out[len]; "" when it has no runs.
 * Returns 0 or the store's error (err[elen]). */
int perf__series_values(perf__store *s, perf__series_column col, char *out, size_t len, char *err,
                        size_t elen);

/* "test: name [clock] n=4096" into out. Returns out. Never fails. */
char *perf__series_label(const perf__series *s, char *out, size_t len);

void perf__series_free(perf__series_set *set);

/* The trace (baseline/trace.h's JSON, malloc'd into *json; NULL when none
 * was recorded) of workload series x at its axis's commit k: the newest
 * run of that GPU and commit that traced it. Returns 0 or the store's
 * error (err[len]). */
int perf__series_trace(perf__store *s, const perf__series_set *set, const perf__series *x,
                       size_t k, char **json, char *err, size_t len);

#endif
