#!/usr/bin/env bash
# The history, end to end on a GPU: 10 suite runs recorded in one SQLite
# history as commits c01..c10, the last 5 built with a planted regression
# (PERF_PLANT_EXTRA_SIN=$PLANT in kernels/elementwise.cu: PLANT per mille of
# sin4_kernel's blocks compute one more sine; PLANT=20 by default, about +3 %
# on an H100: 25 gave +3.2 %, 50 +4.1 %, 100 +6.1 %, 200 +8.5 %), then --trend
# over them, with charts and a page.
#   bench/history-demo.sh OUTDIR [make variables, e.g. YAML_CFLAGS=...]
# Writes OUTDIR/history.db, run01..10.{log,json}, summary.md (run 10's
# Markdown, with its comparison with the runs before), trend.txt,
# trend.html and plots/.
set -euo pipefail
out=${1:?usage: bench/history-demo.sh OUTDIR [make variables]}
shift
mkdir -p "$out"
jobs=$(nproc)
make -s -j"$jobs" "$@" all
make -s -j"$jobs" "$@" BUILD=build/plant NVCCFLAGS="-O3 -DPERF_PLANT_EXTRA_SIN=${PLANT:-20}" build/plant/perftest
for i in $(seq 1 10); do
  c=$(printf 'c%02d' "$i")
  bin=build/perftest
  [ "$i" -gt 5 ] && bin=build/plant/perftest
  extra=()
  [ "$i" -eq 10 ] && extra=(--markdown="$out/summary.md")
  "$bin" --history="$out/history.db" --commit="$c" --branch=demo --json="$out/run$c.json" \
    "${extra[@]}" >"$out/run$c.log" 2>&1 || true
  echo "$c ($bin): $(tail -1 "$out/run$c.log")"
done
build/perftest --history="$out/history.db" --trend --plots="$out/plots" --html="$out/trend.html" \
  >"$out/trend.txt" 2>&1 || true
cat "$out/trend.txt"
