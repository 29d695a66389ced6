/* sweep.h — PERF_SWEEP: the running test's parameter sweep, its points and how claims name them. */
#ifndef PERF_SWEEP_H
#define PERF_SWEEP_H

#include <stddef.h>

#include "record/claimrec.h"

enum { PERF__SWEEP_MAX = PERF__CLAIMREC_MAX_POINTS }; /* points in one sweep */

/* Registers hook to run when a sweep passes its last point, before the
 * sweep statement ends (once per hook; up to 4; a framework bug aborts
 * beyond). A hook may end the test (an ASSERT over the sweep). */
void perf__sweep_on_end(void (*hook)(void));
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

#endif
