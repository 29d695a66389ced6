/* test.h — one test in the worker: its body in a context, then end-of-test checks and cleanups. */
#ifndef PERF_TEST_H
#define PERF_TEST_H

#include "util/registry.h"
#include "worker/context.h"

/* Runs t's body inside a new context, catching an early end (ASSERT, SKIP,
 * CUDA error), then settles its outcome: the check hooks, a wait for the
 * device (a fault after the last check is this test's), the cleanups and
 * release hooks. Never fails itself; the outcome is in *res. */
void perf__test_exec(const perf__registry_test *t, perf__context_result *res);

#endif
