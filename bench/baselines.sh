#!/usr/bin/env bash
# baselines.sh — does a recorded baseline catch a planted slowdown, and pass an unchanged rerun?
# `make bench-baselines` calls it (issue 32; docs/fidelity-baselines.md).
#
# Phases, in this order (BB_PHASES, comma-separated; all by default):
#   update     the GPU idles BB_IDLE seconds (20), then one --update-baselines
#              of every bb.* workload (5 fresh runs each) into BB_OUT/baselines,
#              with --accept-wide so that every workload gets an entry (the
#              table marks the wide ones)
#   unchanged  BB_UNCHANGED checks of every workload (20), each a fresh perftest
#   planted    for each p in BB_PLANTS (5,10,20,40): BB_PLANTED checks (10) with a
#              dependent delay kernel of p % of the entry's median queued after
#              each iteration (bench/baselines/cases.c; the unchanged runs queue
#              it with 0 cycles)
#   ratio      BB_RATIO runs (3) of the bbr.* twins: an A/A ratio claim on the
#              same workloads, for the cost of a check against a ratio claim
# BB_FILTER narrows the workloads ('*' : all; e.g. 'gemm_*'). Logs go to
# BB_OUT (build/bench-baselines-out); a later call with BB_PHASES=planted
# uses the baseline already there. The table: bench/baselines_summary.py.
# Exit 2 when it cannot run (a missing binary, no baseline for a check phase).
set -u -o pipefail
BUILD=${BUILD:-build}
BB=$BUILD/bench-baselines
OUT=${BB_OUT:-$BUILD/bench-baselines-out}
PHASES=${BB_PHASES:-update,unchanged,planted,ratio}
FILTER=${BB_FILTER:-*}
die() { echo "bench-baselines: $*" >&2; exit 2; }
[ -x "$BB" ] || die "$BB is missing (make $BB)"
for k in BB_IDLE BB_UNCHANGED BB_PLANTED BB_RATIO; do
  v=${!k:-0}
  [[ $v =~ ^[0-9]+$ ]] || die "$k must be a whole number, got '$v'"
done
mkdir -p "$OUT/baselines" || die "cannot create $OUT"
check() { # check LOG [env...]: one fresh perftest over the workloads
  local log=$1
  shift
  env "$@" "$BB" --baseline-dir="$OUT/baselines" --filter="bb.$FILTER" --verbose --color=never \
    > "$log" 2>&1
  echo "  $(basename "$log"): $(tail -1 "$log")"
}
has() { [[ ",$PHASES," == *",$1,"* ]]; }
if has update; then
  echo "bench-baselines: GPU idle ${BB_IDLE:-20} s, then --update-baselines"
  sleep "${BB_IDLE:-20}"
  "$BB" --baseline-dir="$OUT/baselines" --update-baselines --accept-wide --filter="bb.$FILTER" \
    --color=never > "$OUT/update.log" 2>&1 || echo "  update exit $?"
  grep -A2 '^  bb\.' "$OUT/update.log" | cut -c1-240
fi
ls "$OUT"/baselines/*.yaml > /dev/null 2>&1 || die "no baseline in $OUT/baselines: run the update phase"
if has unchanged; then
  for k in $(seq 1 "${BB_UNCHANGED:-20}"); do check "$OUT/unchanged.$k.log"; done
fi
if has planted; then
  plants=${BB_PLANTS:-5,10,20,40}
  for p in ${plants//,/ }; do
    python3 "$(dirname "$0")/baselines_summary.py" --plant "$p" "$OUT" > "$OUT/plant.$p.txt" ||
      die "cannot size the planted delays"
    for k in $(seq 1 "${BB_PLANTED:-10}"); do
      check "$OUT/planted.$p.$k.log" BENCH_PLANT_FILE="$OUT/plant.$p.txt"
    done
  done
fi
if has ratio; then
  for k in $(seq 1 "${BB_RATIO:-3}"); do
    "$BB" --filter="bbr.$FILTER" --verbose --color=never > "$OUT/ratio.$k.log" 2>&1
    echo "  ratio.$k.log: $(tail -1 "$OUT/ratio.$k.log")"
  done
fi
python3 "$(dirname "$0")/baselines_summary.py" "$OUT" | tee "$OUT/results.md"
