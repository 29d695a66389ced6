/* endframe.h — the END frame: a finished test's tally, sent by the worker as named fields. */
#ifndef PERF_ENDFRAME_H
#define PERF_ENDFRAME_H

#include <stddef.h>

/* The tally, one row per field: its name on the wire and what it says.
 * The frame is "name=value" for each row, in this order, separated by
 * spaces, then a newline and the test's reason (free text). */
#define PERF__ENDFRAME_MAP(X)                                                     \
  X(outcome, "the test's perf_outcome")                                          \
  X(nodevice, "1: skipped because no CUDA device could be used")                 \
  X(checks, "claims evaluated")                                                  \
  X(failures, "claims that did not hold (INCONCLUSIVE counts)")                  \
  X(gpu_broken, "1: the CUDA runtime failed to start in this worker: retire it") \
  X(baseline_missing, "1: a baseline check found no file or no entry")

typedef struct perf__endframe {
#define PERF__X(field, what) int field;
  PERF__ENDFRAME_MAP(PERF__X)
#undef PERF__X
  char reason[600];
} perf__endframe;

/* Writes e as the frame's text into buf[len]; returns its length, at most
 * len - 1 (the reason is cut to fit). Never fails. */
size_t perf__endframe_format(const perf__endframe *e, char *buf, size_t len);

/* Reads a frame's text into *e. Returns 0, or PERF__EPROTO when a field is
 * missing, out of order, not a number, or the outcome is not a
 * perf_outcome (*e is then partly filled). */
int perf__endframe_parse(const char *data, perf__endframe *e);

#endif
