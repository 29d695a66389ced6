/* supervisor.h — runs the selected tests in worker processes, with timeouts, and reports them. */
#ifndef PERF_SUPERVISOR_H
#define PERF_SUPERVISOR_H

#include <stddef.h>

#include "cli/options.h"
#include "util/registry.h"

/* Runs tests[0..n) one at a time in a worker started by exec'ing self with
 * argv[1..] plus the worker flag; a crashed, exited or timed-out worker fails
 * its test and a fresh one takes the next test. Never touches CUDA.
 * Returns the exit code: 0, 1, or 2 when no worker could be started or a GPU
 * was required but missing. */
int perf__supervisor_run(const perf__options_cli *cli, const perf__registry_test **tests, size_t n,
                    int argc, char **argv);

#endif
