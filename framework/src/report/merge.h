/* merge.h — combines the --json reports of a sharded run into one report, one exit code and its charts. */
#ifndef PERF_MERGE_H
#define PERF_MERGE_H

#include "base/options.h"

/* Reads the reports in[0..n), checks that they are one run's shards (same
 * total, each index once) and writes out: every test, summed totals, each
 * shard's run record, and the worst exit code. Prints a one-line summary.
 * Returns that exit code (0 or 1), or 2 after a message naming the file
 * that is unreadable, malformed, not a perfgate report, a duplicate or
 * missing shard, or an output that cannot be written. With cli->plots or
 * cli->html it also writes the merged run's charts and page (2 when they
 * cannot be written). Inputs and output come from cli->merge*. */
int perf__merge(const perf__options_cli *cli);
/* The same for out and in[0..n) without pages; shards = 0 merges the
 * per-device reports of --devices (no shard check, the run records listed
 * under "devices"). Returns the merged run's exit code as perf__merge does
 * (2 after a message when an input cannot be read or out written). */
int perf__merge_reports(const char *out, char **in, int n, int shards);

#endif
