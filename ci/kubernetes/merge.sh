#!/usr/bin/env bash
# merge.sh — waits for a perfgate Indexed Job, merges its shards' reports in the cluster, exits with the run's code.
#   ci/kubernetes/merge.sh "$(kubectl create -f ci/kubernetes/h100.yaml -o name)"
# JOB is a Job's name or job.batch/NAME. Prints the merge's output; the merged report and
# page stay on the reports volume, in the run's directory (merged.json, report.html).
# Exit status: the merge's (0 passed, 1 a check failed, 2 a shard missing or unreadable),
# or 2 when kubectl fails or the Job does not finish within PERFGATE_WAIT (default 2h).
set -uo pipefail
[ $# -eq 1 ] || { echo "usage: $0 JOB" >&2; exit 2; }
job=${1##*/}
here=$(dirname "$0")
wait_for=${PERFGATE_WAIT:-2h}

# Waits until Job $1 is Complete or Failed (a Job with a failed shard ends Failed, once
# all its shards are done); 2 when neither comes in time.
finished() {
  kubectl wait --for=condition=Complete "job/$1" --timeout="$wait_for" >/dev/null 2>&1 & local c=$!
  kubectl wait --for=condition=Failed "job/$1" --timeout="$wait_for" >/dev/null 2>&1 & local f=$!
  wait -n "$c" "$f"; local rc=$?
  kill "$c" "$f" 2>/dev/null; wait "$c" "$f" 2>/dev/null
  [ "$rc" -eq 0 ] || { echo "merge.sh: job/$1 did not finish within $wait_for" >&2; return 2; }
}

uid=$(kubectl get job "$job" -o 'jsonpath={.metadata.uid}') || uid=
[ -n "$uid" ] || { echo "merge.sh: no Job $job" >&2; exit 2; }
finished "$job" || exit 2
kubectl get job "$job" -o 'jsonpath={.status.succeeded} of {.spec.completions} shards succeeded, {.status.failed} attempts failed{"\n"}'

merge=$(sed "s/PERFGATE_RUN_ID_FROM_MERGE_SH/$uid/" "$here/merge.yaml" | kubectl create -f - -o name) ||
  { echo "merge.sh: cannot create the merge Job" >&2; exit 2; }
merge=${merge##*/}
finished "$merge" || exit 2
kubectl logs "job/$merge"
code=$(kubectl get pods -l "batch.kubernetes.io/job-name=$merge" \
  -o 'jsonpath={.items[0].status.containerStatuses[0].state.terminated.exitCode}')
case $code in
  0 | 1 | 2) exit "$code" ;;
  *) echo "merge.sh: the merge pod of job/$merge ended without an exit code ('$code')" >&2; exit 2 ;;
esac
