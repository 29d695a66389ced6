/* sweep.h — PERF_SWEEP: the running test's parameter sweep, its points and how claims name them. */
#ifndef PERF_SWEEP_H
#define PERF_SWEEP_H

#include <stddef.h>

#include "base/json.h"

enum { PERF__SWEEP_MAX = 64 }; /* points in one sweep */

/* Forgets any sweep (a new test begins, or the last one ended early). */
void perf__sweep_reset(void);
/* 1 while a sweep's body runs. */
int perf__sweep_active(void);
/* The sweep variable's name ("n"), or "" outside a sweep. */
const char *perf__sweep_var(void);
/* The current point's value, its index and the number of points. */
long perf__sweep_value(void);
size_t perf__sweep_index(void);
size_t perf__sweep_points(void);
/* " [n=256]" inside a sweep, "" outside; never fails (truncates). */
const char *perf__sweep_tag(char *buf, size_t len);
/* Appends ", \"sweep\": {\"param\": ..., \"value\": ...}" inside a sweep. */
void perf__sweep_json(perf__json *j);
/* 1 when the test left a sweep by return or goto (it was still open when
 * the body returned normally). */
int perf__sweep_abandoned(void);

#endif
