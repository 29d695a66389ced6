#!/usr/bin/env bash
# run-fleet.sh — submits ci/slurm/perftest.sbatch as one job array per GPU model, waits for them all, merges each model's shards and exits with the worst code.
#   ci/slurm/run-fleet.sh h100 a100 'l4=--partition=l4 --gres=gpu:l4:1'
# A MODEL is submitted with --constraint=MODEL (a node feature naming the GPU); MODEL=OPTIONS
# submits it with those sbatch options instead. Environment: PERFTEST (default build/perftest),
# PERFGATE_SHARDS (tasks per model, default 4), PERFGATE_OUT (default perftest-fleet, on a
# filesystem the nodes share), PERFGATE_SBATCH (more sbatch options for every array), and
# perftest.sbatch's PERFGATE_HISTORY and PERFGATE_ARGS. Writes OUT/MODEL/task.K.out (the task's
# console), OUT/MODEL/shard.K.json and the merged OUT/MODEL.json. Each task records its own
# shard when PERFGATE_HISTORY is set, so the merge does not record (a run never counts twice).
# The wait is bounded by the sbatch script's --time. Exit status: the worst model's merge (0
# passed, 1 a check failed, 2 a shard missing: a task killed, cancelled or out of time), or 2
# when an array could not be submitted.
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: $0 MODEL[=SBATCH-OPTIONS]..." >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
perftest=${PERFTEST:-build/perftest}
n=${PERFGATE_SHARDS:-4}
out=${PERFGATE_OUT:-perftest-fleet}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "run-fleet.sh: PERFGATE_SHARDS='$n' is not a number of tasks" >&2; exit 2; }

models=() pids=()
for spec in "$@"; do
  model=${spec%%=*} select="--constraint=$spec"
  [[ $spec == *=* ]] && select=${spec#*=}
  [[ $model =~ ^[A-Za-z0-9._-]+$ ]] || { echo "run-fleet.sh: '$model' is not a model name" >&2; exit 2; }
  mkdir -p "$out/$model" && rm -f "$out/$model"/shard.*.json "$out/$model/job" || exit 2
  # --wait returns when every task has ended; its exit code is not needed: the merge decides.
  # shellcheck disable=SC2086
  PERFGATE_OUT=$out/$model sbatch --wait --parsable --array="0-$((n - 1))" --job-name="perftest-$model" \
    --output="$out/$model/task.%a.out" $select ${PERFGATE_SBATCH:-} "$here/perftest.sbatch" \
    >"$out/$model/job" &
  models+=("$model") pids+=($!)
done

worst=0
for i in "${!models[@]}"; do
  model=${models[$i]}
  wait "${pids[$i]}"
  job=$(head -n 1 "$out/$model/job" 2>/dev/null | cut -d';' -f1)
  if [ -z "$job" ]; then
    echo "run-fleet.sh: $model: the array was not submitted" >&2
    worst=2 && continue
  fi
  shards=()
  for ((k = 0; k < n; k++)); do
    if [ -f "$out/$model/shard.$k.json" ]; then shards+=("$out/$model/shard.$k.json")
    else echo "run-fleet.sh: $model: task ${job}_$k left no report (see $out/$model/task.$k.out)" >&2; fi
  done
  if [ ${#shards[@]} -eq 0 ]; then
    code=2
  else
    "$perftest" --merge="$out/$model.json" "${shards[@]}"
    code=$?
  fi
  echo "run-fleet.sh: $model: job $job, exit $code"
  [ "$code" -gt "$worst" ] && worst=$code
done
exit "$worst"
