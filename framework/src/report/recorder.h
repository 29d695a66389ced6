/* recorder.h — --history: the store checked before tests run, then the run's report recorded. */
#ifndef PERF_RECORDER_H
#define PERF_RECORDER_H

#include <stddef.h>

#include "io/jsontree.h"
#include "cli/options.h"

/* What recording a run left behind, for the Markdown comparison. */
typedef struct perf__recorder_run {
  long long run;   /* its id; 0: not recorded */
  char gpu[320];   /* the GPU (or "no GPU: CPU") it was recorded under */
} perf__recorder_run;

/* Checks the commit and branch the run would be recorded under
 * (history/provenance.h), then opens cli->history (creating a SQLite
 * file), brings its schema up to date and closes it, so that a store that
 * cannot be used or a label that cannot be recorded stops the run before
 * it measures. Returns 0 (also without --history), or PERF__EUSAGE /
 * PERF__EIO with "--history: why (nothing was run)" in err[len]. */
int perf__recorder_check(const perf__options_cli *cli, char *err, size_t len);

/* The same for --merge with --history, once the shards' reports are read
 * and before anything is written: the commit is --commit, else the one
 * the first report (first, read from path) was run with, as the merged
 * run will be recorded. Returns 0 (also without --history), or
 * PERF__EUSAGE / PERF__EIO with "--history: why (nothing was written)" in
 * err[len] (why names path for a commit that came from it). */
int perf__recorder_check_merge(const perf__options_cli *cli, const perf__jsontree_node *first,
                               const char *path, char *err, size_t len);

/* Records doc (a perfgate-report/1 document, parsed from text: the
 * document as written, kept whole) in cli->history as one run from
 * origin ("run", "merge"), with the commit and branch of
 * --commit/--branch, the CI's variables or git; fills *out (may be NULL).
 * Prints "perfgate: recorded run N (commit C, GPU G) in LOC" on stdout.
 * Returns 0, or PERF__EIO after printing "PROG: --history=LOC: cannot
 * record the run: why" on stderr (nothing of the run is then in the
 * store). */
int perf__recorder_record(const perf__options_cli *cli, const perf__jsontree_node *doc, const char *text,
                          const char *origin, perf__recorder_run *out);

#endif
