/* commitreport.h — --commit-report=COMMIT: one commit across GPUs, judged from the history. */
/* Each GPU's outcome, what changed against its earlier commits, and the GPUs
 * that did not run; exit 0, 1 (a GPU regressed) or 125 (git bisect's skip). */
#ifndef PERF_COMMITREPORT_H
#define PERF_COMMITREPORT_H

#include "cli/options.h"

/* The commits of each GPU read back, ending with the commit: its earlier
 * commits are looked for among them. */
#define PERF__COMMITREPORT_WINDOW 200
/* The exit code of a commit that cannot be judged (never recorded, no
 * earlier commit on any GPU that ran it, an unreadable history): git
 * bisect run's "skip", never 2, which bisect would take for "bad". */
#define PERF__COMMITREPORT_SKIP 125

/* Prints the report of cli->commit_report from cli->history (the tests
 * --filter picks) to stdout, and writes --markdown and --html when given.
 * Earlier commits are the commit's ancestors in git when the repository
 * in the working directory has it, else those recorded before it (the
 * report says which). Each GPU's series are judged by history/judge.h's
 * rule against the noise between runs its earlier commits show; runs
 * recorded on an unfit runner are named and decide nothing (their series
 * and failed tests are left out). Returns 0 (every GPU that ran it
 * held), 1 (a GPU regressed: a failed test in a fit run, or a series
 * moved for the worse) or PERF__COMMITREPORT_SKIP (a GPU's run has
 * shards that were never recorded: INCOMPLETE, whatever else; a GPU
 * UNDECIDED: a series moved with too few earlier commits to know the
 * noise, no band long enough, every run recorded unfit), with the reason
 * on stderr. The shards of one run id count once each: the last attempt
 * of a retried shard replaces the earlier. */
int perf__commitreport_run(const perf__options_cli *cli);

#endif
