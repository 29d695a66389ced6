#!/usr/bin/env bash
# compare.sh — perfgate, nvbench and triton's do_bench timing the same kernels, side by side.
# The tools run in interleaved processes; `make bench-compare` calls it.
#
# Each round runs one process of every tool and setting, one after another,
# so that the GPU's state drifts over all of them alike. Raw outputs go under
# $COMPARE_OUT (default build/compare); bench/compare.py prints the table:
# median per kernel and clock, cross-process CV, wall time per process and
# per measurement, and the time each tool needs to reach a given CV.
#   NVBENCH=path           an nvbench binary of bench/nvbench_kernels.cu
#                          (bench/nvbench-build.sh builds one); without it the
#                          nvbench columns are left out
#   COMPARE_RUNS (8)       rounds, i.e. processes per tool and setting
#   COMPARE_SAMPLES        perfgate settings: N samples, or pREL: the baseline
#                          check's rule at precision REL ("11 101 p1e-3")
#   COMPARE_NVBENCH_SETS   nvbench settings, ';'-separated argument lists
#                          ("default;--max-noise 2 --min-time 0.05"); "default" is none
#   COMPARE_DO_BENCH (1)   0 leaves do_bench out
# Exit 2 when a tool cannot run at all.
set -u
BUILD=${BUILD:-build}
OUT=${COMPARE_OUT:-$BUILD/compare}
RUNS=${COMPARE_RUNS:-8}
SAMPLES=${COMPARE_SAMPLES:-11 101 p1e-3}
NVBENCH=${NVBENCH:-}
NV_SETS=${COMPARE_NVBENCH_SETS:-default;--max-noise 2 --min-time 0.05}
DO_BENCH=${COMPARE_DO_BENCH:-1}
B=$BUILD/bench-fidelity
fail() { printf 'bench-compare: %s\n' "$*" >&2; exit 2; }
say() { printf '== %s\n' "$*" >&2; }

[ -x "$B" ] || fail "$B is missing (make bench-compare builds it)"
[ -z "$NVBENCH" ] || [ -x "$NVBENCH" ] || fail "NVBENCH=$NVBENCH is not an executable (bench/nvbench-build.sh builds one)"
case "$RUNS" in '' | *[!0-9]* | 0 | 1) fail "COMPARE_RUNS=$RUNS: need a whole number of at least 2 (a CV needs two processes)" ;; esac
for s in $SAMPLES; do
  case "$s" in
    p[0-9]*) ;;
    '' | *[!0-9]*) fail "COMPARE_SAMPLES: '$s' is neither a whole number nor pREL (p1e-3)" ;;
  esac
done
if [ "$DO_BENCH" = 1 ] && ! python3 -c 'import torch, triton' 2> /dev/null; then
  say "python3 with torch and triton not found: the do_bench column is left out"
  DO_BENCH=0
fi
mkdir -p "$OUT"
rm -f "$OUT"/pg.* "$OUT"/nv.* "$OUT"/db.* "$OUT"/wall.txt "$OUT"/*.err "$OUT"/results.md

# Runs "$@" with stdout to $1's file; appends "tool setting run seconds" to wall.txt.
timed() {
  local out=$1 tag=$2; shift 2
  local t0 t1
  t0=$(date +%s.%N)
  local err
  err="$OUT/$(echo "$tag" | cut -d' ' -f1).err"
  "$@" > "$out" 2>> "$err" || { say "$tag failed: $(tail -1 "$err") (all of it: $err)"; return 1; }
  t1=$(date +%s.%N)
  echo "$tag $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" >> "$OUT/wall.txt"
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader \
  > "$OUT/gpu.txt" 2> /dev/null || echo "unknown" > "$OUT/gpu.txt"
for i in $(seq 1 "$RUNS"); do
  say "round $i of $RUNS"
  for s in $SAMPLES; do
    timed "$OUT/pg.$s.$i.txt" "perfgate $s $i" "$B" compare "$s" || [ "$i" -gt 1 ] || fail "perfgate cannot run"
  done
  if [ -n "$NVBENCH" ]; then
    k=0
    IFS=';' read -ra sets <<< "$NV_SETS"
    for set in "${sets[@]}"; do
      k=$((k + 1))
      args=$set; [ "$set" = default ] && args=
      # shellcheck disable=SC2086
      timed "$OUT/nv.$k.$i.log" "nvbench $k $i" "$NVBENCH" --json "$OUT/nv.$k.$i.json" $args \
        || [ "$i" -gt 1 ] || fail "nvbench cannot run"
      echo "$set" > "$OUT/nv.$k.set"
    done
  fi
  if [ "$DO_BENCH" = 1 ]; then
    timed "$OUT/db.$i.txt" "do_bench 1 $i" python3 bench/do_bench.py "$BUILD/libperfkernels.so" \
      || [ "$i" -gt 1 ] || fail "do_bench cannot run"
  fi
done
python3 bench/compare.py "$OUT"
