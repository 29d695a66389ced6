/* devices.h — --devices: one supervisor per GPU in parallel, pinned by CUDA_VISIBLE_DEVICES. */
#ifndef PERF_DEVICES_H
#define PERF_DEVICES_H

#include <stddef.h>

#include "cli/options.h"
#include "util/registry.h"

enum { PERF__DEVICES_MAX = 64 };

/* Reads --devices ("all" or a list like "0,2") into ids[PERF__DEVICES_MAX],
 * before anything is printed or run. Returns the count, or -1 with the
 * problem in err[len]: a malformed list, a device listed twice, none, or
 * one this machine does not have (not checked under CUDA_VISIBLE_DEVICES,
 * nor where no GPU is usable at all: the tests skip then, saying why).
 * Returns 0 for "all" where no GPU is usable, with a notice in err saying
 * why (the driver's state and CUDA's error): the caller runs the tests as
 * without --devices, and those that need a GPU skip. */
int perf__devices_parse(const char *spec, int *ids, char *err, size_t len);

/* The run id of device's run under --devices, cli->run_id with "/gpuK"
 * after it (K the device), whole into out[len] ("" without a run id; len
 * at least PERF__LABEL_MAX + 1). Returns 0, or PERF__EUSAGE when that id
 * breaks the label rule of run ids (longer than PERF__LABEL_MAX bytes),
 * with the reason naming what gave the run id (cli->run_id_from) in
 * err[elen]: the run checks every device's before it starts. */
int perf__devices_run_id(const perf__options_cli *cli, int device, char *out, size_t len, char *err,
                         size_t elen);

/* Runs tests[0..n) on every device of ids[0..nd): one forked supervisor per
 * device sees only that GPU (so its baselines are the GPU's own) and runs
 * on an equal share of the CPUs, their output comes back line by line
 * prefixed "[gpu K] ", and each report format's file is written per
 * device (perf__outputs_for_gpu: NAME.gpuK.EXT); a merged format's
 * (PERF__OPTIONS_MERGED: --json) is also merged into the file named.
 * Returns the worst exit code, or 2 after a message when a child cannot be
 * started or ends without its summary line (or a merge failed). */
int perf__devices_run(const perf__options_cli *cli, const int *ids, int nd,
                      const perf__registry_test **tests, size_t n, int argc, char **argv);

#endif
