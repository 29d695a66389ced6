/* traceexport.h — --trace-dir: a workload's trace as Chrome JSON (Perfetto, chrome://tracing). */
#ifndef PERF_TRACEEXPORT_H
#define PERF_TRACEEXPORT_H

#include <stddef.h>

#include "baseline/trace.h"

/* Whose trace is written where: the trace of workload in test, in the
 * directory dir (--trace-dir's). */
typedef struct perf__traceexport_file {
  const char *dir, *test, *workload;
} perf__traceexport_file;

/* Writes t's events (the routing pass's calls) to
 * to->dir/<test>.<workload>.json (each name's characters other than
 * letters, digits, '-', '_', '.', '[', ']' and '=' made '_'; the
 * directory made when missing, one level), replacing the file atomically;
 * the path into path[plen]. Returns 0, or PERF__EIO with the reason in
 * err[len] (the directory cannot be made, the file cannot be written).
 * Nothing is written for a trace without events (returns 0, path ""). */
int perf__traceexport_write(const perf__traceexport_file *to, const perf__trace *t, char *path,
                            size_t plen, char *err, size_t len);

#endif
