#!/usr/bin/env bash
# fidelity.sh — runs every measurement of docs/fidelity.md on this machine's GPU.
# `make bench-fidelity` calls it.
#
# Writes raw logs and results.md under $FIDELITY_OUT (default build/fidelity)
# and prints the table last. Needs a GPU; Nsight Compute (ncu) and python3
# with torch and triton are used where present, and their rows say so when not.
# FIDELITY_RUNS (10), FIDELITY_AA (500) and FIDELITY_POWER (1000) set the
# counts; 0 leaves part c or d out.
# Nsight Compute runs with --clock-control none: it must not lock the clocks.
set -u
BUILD=${BUILD:-build}
OUT=${FIDELITY_OUT:-$BUILD/fidelity}
B=$BUILD/bench-fidelity
RUNS=${FIDELITY_RUNS:-10}
AA_N=${FIDELITY_AA:-500}
POWER_N=${FIDELITY_POWER:-1000}
mkdir -p "$OUT"
rm -f "$OUT"/*.txt "$OUT"/*.csv
say() { printf '== %s\n' "$*" >&2; }
fail() { printf 'bench-fidelity: %s\n' "$*" >&2; exit 2; }

[ -x "$B" ] || fail "$B is missing (make bench-fidelity builds it)"
"$B" medians > "$OUT/medians.0.txt" 2> "$OUT/medians.0.err" \
  || fail "no GPU run possible: $(tail -1 "$OUT/medians.0.err")"

say "a. Nsight Compute (gpu__time_duration.sum, warm and with caches flushed)"
if command -v ncu > /dev/null; then
  for cache in none all; do
    ncu --clock-control none --cache-control $cache --metrics gpu__time_duration.sum --csv \
      --kernel-name regex:"^(ew|sin4)_kernel" \
      "$B" ncu-target > "$OUT/ncu-$cache.csv" 2> "$OUT/ncu-$cache.err" \
      || say "ncu --cache-control $cache failed: see $OUT/ncu-$cache.err"
  done
else
  say "ncu not found: row a is left out"
fi

say "b. $RUNS processes of bench-fidelity medians, and of triton.testing.do_bench"
for i in $(seq 1 $((RUNS - 1))); do
  "$B" medians > "$OUT/medians.$i.txt" 2>> "$OUT/medians.err" || fail "medians run $i failed"
done
if python3 -c 'import torch, triton' 2> /dev/null; then
  for i in $(seq 0 $((RUNS - 1))); do
    python3 bench/do_bench.py "$BUILD/libperfkernels.so" > "$OUT/triton.$i.txt" 2>> "$OUT/triton.err" \
      || say "do_bench run $i failed: see $OUT/triton.err"
  done
else
  say "python3 with torch and triton not found: the do_bench column is left out"
fi

if [ "$AA_N" -gt 0 ]; then
  say "c. A/A: $AA_N + $AA_N + $((AA_N / 5)) comparisons of identical workloads"
  "$B" aa "$AA_N" ew_256k events > "$OUT/aa.txt" 2>> "$OUT/aa.err" || fail "aa failed"
fi
if [ "$POWER_N" -gt 0 ]; then
  say "d. power: $POWER_N comparisons with a planted 10 % slowdown"
  "$B" power "$POWER_N" > "$OUT/power.txt" 2>> "$OUT/power.err" || fail "power failed"
fi
say "e. timing-loop overhead"
"$B" overhead > "$OUT/overhead.txt" 2>> "$OUT/overhead.err" || fail "overhead failed"

say "f. the whole suite"
t0=$(date +%s.%N)
"$BUILD/perftest" ${SUITE_ARGS:-} > "$OUT/suite.txt" 2>&1
rc=$?
echo "suite_exit $rc seconds $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" >> "$OUT/suite.txt"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader \
  > "$OUT/gpu.txt" 2> /dev/null || echo "unknown" > "$OUT/gpu.txt"
python3 bench/summarise.py "$OUT"
