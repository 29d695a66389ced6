/* devices.h — --devices: one supervisor per GPU, in parallel, each pinned with CUDA_VISIBLE_DEVICES. */
#ifndef PERF_DEVICES_H
#define PERF_DEVICES_H

#include <stddef.h>

#include "base/options.h"
#include "base/registry.h"

/* Runs tests[0..n) on every device of cli->devices ("all" or "0,2"): one
 * forked supervisor per device sees only that GPU (so its baselines are the
 * GPU's own) and runs on an equal share of the CPUs, their output comes back line by line prefixed "[gpu K] ", and
 * each report file is written per device (NAME.gpuK.EXT); --json is also
 * merged into the file named. Returns the worst exit code, or 2 after a
 * message when the list is malformed, names no device, or a child cannot be
 * started. */
int perf__devices_run(const perf__cli *cli, const perf__registry_test **tests, size_t n, int argc,
                      char **argv);

#endif
