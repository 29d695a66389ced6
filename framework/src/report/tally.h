/* tally.h — what the CI reports share: a run's outcome counts, which detail lines are failing verdicts, and a Markdown table's cell. */
#ifndef PERF_TALLY_H
#define PERF_TALLY_H

#include <stddef.h>
#include <stdio.h>

#include "base/status.h"
#include "report/result.h"

typedef struct perf__tally {
  size_t tests, failures, errors, skipped;
  double seconds;
} perf__tally;

/* FAIL and INCONCLUSIVE are failures; ERROR (not a valid test, a crash) is
 * an error, as JUnit and TAP readers mean it. Never fails. */
int perf__tally_is_failure(perf__outcome o);

/* The counts and wall time of results r[0..n). Never fails. */
perf__tally perf__tally_count(const perf__result *r, size_t n);

/* 1 when a detail line gives a claim's failing verdict with its numbers.
 * Never fails. */
int perf__tally_verdict_line(const char *line);

/* s as one Markdown table cell, for every table perfgate writes (the
 * summary and the history's comparison): at most max bytes of it, each
 * newline or carriage return a space, each '|' written "\\|", so that the
 * row stays one row. Never fails (stream errors show in ferror(f)). */
void perf__tally_md_cell(FILE *f, const char *s, size_t max);

#endif
