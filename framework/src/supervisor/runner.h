/* runner.h — the runner checked before a run: a preflight line per GPU, and unfit runners. */
/* An unfit runner is a run-level warning or, with --unfit-runner=error, exit
 * 2 with nothing run. */
#ifndef PERF_RUNNER_H
#define PERF_RUNNER_H

#include "cli/options.h"
#include "host/preflight.h"

/* Takes the host's readings once and each GPU's (ids[nd], the --devices
 * list; nd 0: device 0 as the run sees it) into pf[] (nd entries, or 1),
 * judges them against the thresholds, and prints a preflight line per GPU,
 * the cost with --verbose, and one WARNING naming every cause when the
 * runner is unfit. Returns 0 to run the tests, or 2 when the runner is
 * unfit and cli->unfit_error is set: the causes said on stderr, nothing
 * run. Never fails otherwise (what cannot be read is said unknown). */
int perf__runner_check(const perf__options_cli *cli, const int *ids, int nd, perf__preflight *pf);

#endif
