/* merge.h — combines the --json reports of a sharded run into one report and one exit code. */
#ifndef PERF_MERGE_H
#define PERF_MERGE_H

/* Reads the reports in[0..n), checks that they are one run's shards (same
 * total, each index once) and writes out: every test, summed totals, each
 * shard's run record, and the worst exit code. Prints a one-line summary.
 * Returns that exit code (0 or 1), or 2 after a message naming the file
 * that is unreadable, malformed, not a perfgate report, a duplicate or
 * missing shard, or an output that cannot be written. */
int perf__merge(const char *out, char **in, int n);
/* The same; shards = 0 merges the per-device reports of --devices (no shard
 * check, the run records listed under "devices"). */
int perf__merge_reports(const char *out, char **in, int n, int shards);

#endif
