/* mergehistory.h — --merge from the history: a run's shards read back by run id and merged. */
/* Each shard's last attempt is merged as its --json file would be; nothing
 * is recorded. */
#ifndef PERF_MERGEHISTORY_H
#define PERF_MERGEHISTORY_H

#include "cli/options.h"

/* Merges the shards of run cli->run_id (on GPU cli->trend_gpu when given)
 * that cli->history holds into cli->merge, each shard's last attempt, as
 * perf__merge would merge their --json files (with --plots and --html,
 * their charts and page too). Only reads the history, and records
 * nothing. Returns the run's exit code (0 or 1), or 2 after a message:
 * the history cannot be read; no shard has that run id (on that GPU:
 * the GPUs that have some are named); its shards ran on several GPUs and
 * no --gpu picks one (named); a shard was recorded before schema 6,
 * without its document; a shard is missing; or as perf__merge. */
int perf__mergehistory_run(const perf__options_cli *cli);

#endif
