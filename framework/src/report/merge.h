/* merge.h — combines a sharded run's --json reports into one report, exit code and charts. */
/* The reports come from files, or from its shards' documents in the history. */
#ifndef PERF_MERGE_H
#define PERF_MERGE_H

#include "io/jsontree.h"
#include "cli/options.h"

/* Reads the reports in[0..n), checks that they are one run's shards (same
 * total, each index once) and writes out: every test, summed totals, each
 * shard's run record, and the worst exit code. Prints a one-line summary.
 * Returns that exit code (0 or 1), or 2 after a message naming the file
 * that is unreadable, malformed, not a perfgate report, a duplicate or
 * missing shard, or an output that cannot be written. With cli->plots or
 * cli->html it also writes the merged run's charts and page (2 when they
 * cannot be written). Inputs and output come from cli->merge*. */
int perf__merge(const perf__options_cli *cli);
/* The run a merge of --devices' reports is: its shard and run id (each
 * GPU's run has a run id of its own). */
typedef struct perf__merge_whole {
  long index, total;
  const char *run_id; /* NULL: none */
} perf__merge_whole;

/* The same for out and in[0..n) without pages; shards = 0 merges the
 * per-device reports of --devices (no shard check, the run records listed
 * under "devices"), the merged run's shard and run id whole's (NULL: the
 * first report's run id, shard 0 of 1). Returns the merged run's exit
 * code as perf__merge does (2 after a message when an input cannot be
 * read or out written). */
int perf__merge_reports(const char *out, char **in, int n, int shards, const perf__merge_whole *whole);

/* Where a merge from the history read its shards: the history (as
 * messages name it) and the run id. */
typedef struct perf__merge_history {
  const char *where, *run_id;
} perf__merge_history;

/* perf__merge of the documents r[0..n) of run h->run_id's shards, read
 * from the history h->where (name[i] names r[i] in messages) instead of
 * files: checked and written the same, a missing shard named as "not in
 * the history", and nothing recorded (the run is there, shard by shard).
 * Frees none of r. Returns as perf__merge does. */
int perf__merge_documents(const perf__options_cli *cli, perf__jsontree_node **r, char **name, int n,
                          const perf__merge_history *h);

#endif
