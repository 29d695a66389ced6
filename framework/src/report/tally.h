/* tally.h — what the CI reports share: outcome counts, failing verdict lines, Markdown cells. */
#ifndef PERF_TALLY_H
#define PERF_TALLY_H

#include <stddef.h>
#include <stdio.h>

#include "util/status.h"
#include "report/result.h"

typedef struct perf__tally {
  size_t tests, failures, errors, skipped;
  double seconds;
} perf__tally;

/* FAIL and INCONCLUSIVE are failures; ERROR (not a valid test, a crash) is
 * an error, as JUnit and TAP readers mean it. Never fails. */
int perf__tally_is_failure(perf_outcome o);

/* The counts and wall time of results r[0..n). Never fails. */
perf__tally perf__tally_count(const perf__result *r, size_t n);

/* 1 when a detail line gives a claim's failing verdict with its numbers.
 * Never fails. */
int perf__tally_verdict_line(const char *line);
/* 1 for a line of what changed in a failed measurement's GPU work (its
 * header, "  what changed in ...", and each change, baseline/trace.h's
 * PERF__TRACE_CHANGED). Never fails. */
int perf__tally_explain_line(const char *line);

/* 1 when a detail line is a first attempt's (PERF__RESULT_FIRST), 2 when
 * it says what the second attempt did (PERF__RESULT_CONFIRMED), else 0:
 * the lines of a test that ran twice (confirm before failing). Never
 * fails. */
int perf__tally_first_attempt_line(const char *line);

/* s as Markdown text in a table cell, for every table perfgate writes (the
 * summary and the history's comparison): at most max bytes of it (never
 * part of a UTF-8 character), rendered as written: each newline or
 * carriage return a space, '<', '>' and '&' as entities (GitHub renders
 * HTML), '\\', '`', '*', '_', '[', ']', '~', '$' (GitHub's math) and '|'
 * (the cell's end) escaped with a backslash. Never fails (stream errors
 * show in ferror(f)). */
void perf__tally_md_cell(FILE *f, const char *s, size_t max);

/* s as a Markdown code span in a table cell (a test's name): at most max
 * bytes, in a fence of one backtick more than its longest run of them,
 * padded with a space where it starts or ends with a backtick or space;
 * each newline or carriage return a space and each '|' "\\|" (GFM's table
 * escape, which holds in a code span). Nothing for "". Never fails. */
void perf__tally_md_code(FILE *f, const char *s, size_t max);

#endif
