/* commitdoc.h — the commit report as a document: each GPU's verdict and changes, in each format. */
/* report/commitreport.c reads the history and judges the commit into a
 * perf__commitdoc; the console lines, and the Markdown and HTML that the
 * report-format table's rows write (report/report.h: a row's commit
 * writer), are rendered from it here. */
#ifndef PERF_COMMITDOC_H
#define PERF_COMMITDOC_H

#include <stddef.h>
#include <stdio.h>

#include "history/band.h"
#include "history/judge.h"
#include "history/series.h"

/* One series that moved at the commit on one GPU, or could not be
 * decided though it moved. */
typedef struct perf__commitdoc_change {
  const perf__series *s;
  perf__series_point was, now; /* was: the newest earlier commit's point */
  const char *was_commit;      /* that commit */
  const char *band_from;       /* the band's first commit */
  perf__band band;
  double p, rel;               /* rel: now against the band's centre (undecided: against was) */
  double sd;                   /* the deviation between runs the test used (log units) */
  double tail_p, tail_nu;      /* as judge.h's rule 2 reads it, and its tails */
  perf__judge_class cls;       /* WORSE, BETTER or SHORT (undecided) */
  int worse;
} perf__commitdoc_change;

/* One shard's last attempt at the commit on one GPU. */
typedef struct perf__commitdoc_attempt {
  char *run_key;       /* NULL: a run recorded with no run id (one whole run) */
  char *unfit;         /* NULL: recorded fit (or before schema 4); else its causes */
  long shard, total, failed;
} perf__commitdoc_attempt;

/* One GPU: what ran at the commit and what changed. */
typedef struct perf__commitdoc_gpu {
  char name[200];
  perf__commitdoc_attempt *at;         /* the last attempt of each shard, in recording order */
  size_t nat;
  long retried;        /* attempts a later one of the same shard replaced */
  long runs, shards, failed; /* runs (a run id's shards one run) and shards that count at
                                the commit; failed tests in the fit ones */
  long unfit, unfit_failed;  /* shards recorded unfit; failed tests in them */
  const char *unfit_why;     /* the first unfit shard's causes */
  char incomplete[300]; /* "run 8812: 2 of 4 shards" when no run is whole; "" */
  char partial[300];    /* the same for a run not whole beside a whole one */
  const perf__series_axis *axis; /* NULL: the series have no point there */
  size_t series, compared;       /* series at the commit; those with an earlier commit */
  size_t decided, machine;       /* those with a band long enough; moved with the machine */
  perf__judge_machine shift;
  perf__commitdoc_change *ch;
  size_t nch, nworse, nundecided; /* undecided: nshort + ntail */
  size_t nshort, ntail;          /* moved, too short a band; within a host clock's tails */
} perf__commitdoc_gpu;

typedef struct perf__commitdoc {
  const char *commit;    /* as the history has it */
  int git;               /* earlier = ancestors in git */
  perf__commitdoc_gpu *g;
  size_t ng;
  struct {
    char *commit;
    int ancestor;
  } seen[256];           /* git's answers, by commit */
  size_t nseen;
  const char *how;       /* which commits are earlier, in words */
} perf__commitdoc;

/* A GPU's verdicts, one row each: its word in every report and its HTML
 * class. */
#define PERF__COMMITDOC_VERDICTS(X)                              \
  X(DID_NOT_RUN, "did not run", "undecided")     \
  X(INCOMPLETE, "INCOMPLETE", "undecided")       \
  X(UNDECIDED, "UNDECIDED", "undecided")         \
  X(REGRESSED, "REGRESSED", "bad")               \
  X(HELD, "held", "ok")

typedef enum perf__commitdoc_verdict {
#define X(v, word, css) PERF__COMMITDOC_##v,
  PERF__COMMITDOC_VERDICTS(X)
#undef X
} perf__commitdoc_verdict;

/* The GPU's verdict: did not run; INCOMPLETE (no run of it whole);
 * UNDECIDED (every shard recorded unfit); REGRESSED (a failed test in a
 * fit shard or a change for the worse); UNDECIDED (a series moved with too
 * short a band or within its tails, or no series has a band long enough);
 * held. Never fails. */
perf__commitdoc_verdict perf__commitdoc_verdict_of(const perf__commitdoc_gpu *g);

/* The GPU's console lines: its verdict and why, then each change. Never
 * fails. */
void perf__commitdoc_print_gpu(const perf__commitdoc_gpu *g);

/* The report as Markdown (a PR comment) or an HTML page onto f. Return 0
 * (stream errors show in ferror(f)). */
int perf__commitdoc_markdown(FILE *f, const perf__commitdoc *r);
int perf__commitdoc_html(FILE *f, const perf__commitdoc *r);

#endif
