/* junit.h — --junit: the run as JUnit XML, one <testsuite> per suite, for GitLab and Jenkins. */
#ifndef PERF_JUNIT_H
#define PERF_JUNIT_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "util/registry.h"
#include "report/result.h"

/* Writes the results s of a run that began at started; device >= 0 (a
 * --devices child) names each suite "suite@gpuK". Never fails (stream
 * errors show in ferror(f)). */
void perf__junit_write(FILE *f, const perf__result_set *s, time_t started, int device);

#endif
