#!/usr/bin/env bash
# commit-noise.sh — does --commit-report call unchanged code REGRESSED? One
# binary (CN_BIN) recorded CN_RUNS times into a fresh SQLite history, each run
# at a commit of its own (u01, u02, ...: nothing changed between them), then
# --commit-report for every commit after the first; with CN_SLOW
# ("workload=0.05", the host suite's BENCH_SLOW) one more run at commit
# "planted" with that slowdown, and its report. Prints each report's verdict
# line and, last, a table: reports, REGRESSED, held, UNDECIDED. A benchmark of
# the rule on real runs, not a test. CN_ARGS: the binary's options (e.g. a
# --filter); CN_OUT: where the history and the logs go. CN_REPORT_ONLY=1
# reads an existing history (CN_OUT/history.db) again, recording nothing.
set -uo pipefail
BUILD=${BUILD:-build}
BIN=${CN_BIN:-$BUILD/perftest}
RUNS=${CN_RUNS:-14}
OUT=${CN_OUT:-$BUILD/commit-noise}
ARGS=${CN_ARGS:-}
DB=$OUT/history.db
mkdir -p "$OUT"
export GIT_DIR=/nonexistent # the order of recording, not a repository's
if [ -z "${CN_REPORT_ONLY:-}" ]; then
  rm -f "$DB" "$DB-wal" "$DB-shm"
  for i in $(seq -w 1 "$RUNS"); do
    # shellcheck disable=SC2086
    "$BIN" --history="$DB" --commit="u$i" --branch=main $ARGS >>"$OUT/runs.log" 2>&1
    echo "recorded u$i (exit $?)"
  done
  if [ -n "${CN_SLOW:-}" ]; then
    # shellcheck disable=SC2086
    BENCH_SLOW=$CN_SLOW "$BIN" --history="$DB" --commit=planted --branch=main $ARGS >>"$OUT/runs.log" 2>&1
    echo "recorded planted (exit $?, BENCH_SLOW=$CN_SLOW)"
  fi
fi
commits=$(python3 -c 'import sqlite3, sys
for (c,) in sqlite3.connect(sys.argv[1]).execute("SELECT commit_id FROM perfgate_runs GROUP BY commit_id ORDER BY min(id)"): print(c)' "$DB")
regressed=0 held=0 undecided=0 n=0
: >"$OUT/reports.txt"
for c in $(echo "$commits" | tail -n +2); do
  "$BIN" --history="$DB" --commit-report="$c" >"$OUT/report-$c.txt" 2>&1
  code=$?
  cat "$OUT/report-$c.txt" >>"$OUT/reports.txt"
  printf '%-8s exit %3d  %s\n' "$c" "$code" "$(grep -m1 '^  [^ ]' "$OUT/report-$c.txt" | cut -c3-160)"
  n=$((n + 1))
  case $code in 1) regressed=$((regressed + 1)) ;; 0) held=$((held + 1)) ;; *) undecided=$((undecided + 1)) ;; esac
done
echo
echo "| reports | REGRESSED (exit 1) | held (exit 0) | not decided (exit 125) |"
echo "|---|---|---|---|"
echo "| $n | $regressed | $held | $undecided |"
