#!/usr/bin/env bash
# noise.sh — runs the shipped suite and A/A claims under injected CPU and GPU noise.
# `make bench-noise` calls it (docs/fidelity-noise.md).
#
# Injections, in this order (the quiet reference first):
#   quiet     nothing injected: the reference every other run is compared with
#   cpu-all   one busy loop per CPU this process may use (nproc: the affinity mask)
#   cpu-half  busy loops on half of them
#   gpu       a co-tenant on the same GPU (build/noise-load gpu: element-wise
#             kernels of four sizes, cuBLAS fp16 GEMMs, 64 MiB copies each way,
#             in a loop); the suite starts once its first work is queued
#   both      cpu-all and gpu at once
#   copy      a co-tenant that only copies: 64 MiB pinned host-to-device copies
#             in a loop (noise-load gpu READY copy; NVML's utilisation names it
#             only while we are idle)
#   tiny      a co-tenant queueing the smallest element-wise kernels in a loop
#   matmul    a co-tenant of fp16 GEMMs in a loop
#   bursty    gpu's co-tenant for 0.5 s, then idle 0.5 s, over and over
#   idle      a co-tenant that holds a context and queues nothing: no claim
#             may name it
# Knobs (environment):
#   NOISE_RUNS    suite runs per injection (3; 0: A/A only)
#   NOISE_RUN_FROM  the number of the first of them (1): runs 4-6 of an
#                 injection in a later call are NOISE_RUN_FROM=4 NOISE_RUNS=3
#   NOISE_AA      A/A comparisons per claim kind and clock under each injection:
#                 `bench-fidelity aa N ew_256k events` and `... device` (200; 0
#                 leaves A/A out)
#   NOISE_AA_CLOCKS  the A/A clocks (events,device)
#   NOISE_INJECT  a comma-separated subset of the injections (all). Without
#                 quiet, the quiet reference already in NOISE_OUT is used, or
#                 taken first when there is none.
#   NOISE_FILTER  the suite's --filter (*)
#   NOISE_OUT     where reports, logs and results.md go (build/noise): one
#                 folder per injection. What a run measures replaces the same
#                 files from an earlier run (suite.K.*, aa.CLOCK.*); the rest
#                 is kept, so that batches (one call each) add up.
# The table comes from bench/noise_summary.py. Exit 2 when it cannot run
# (no GPU, a bad knob, a missing binary, a load that does not start); every
# process it started is stopped on any exit, Ctrl-C included, and the loads
# die with it even when it is killed outright (PR_SET_PDEATHSIG).
set -u
BUILD=${BUILD:-build}
OUT=${NOISE_OUT:-$BUILD/noise}
RUNS=${NOISE_RUNS:-3}
FROM=${NOISE_RUN_FROM:-1}
AA_N=${NOISE_AA:-200}
AA_CLOCKS=${NOISE_AA_CLOCKS:-events,device}
FILTER=${NOISE_FILTER:-*}
LOAD=$BUILD/noise-load

say() { printf '== %s\n' "$*" >&2; }
fail() { printf 'bench-noise: %s\n' "$*" >&2; exit 2; }
command -v python3 > /dev/null || fail "python3 is needed for the injections and the table (bench/noise_summary.py)"
ALL_INJECTIONS=$(python3 bench/noise_summary.py --injections) || exit 2
INJECT=${NOISE_INJECT:-${ALL_INJECTIONS// /,}}

# ---- what this script started: stopped on every exit ---------------------------
PIDS=()
forget() {
  local keep=() p
  for p in ${PIDS[@]+"${PIDS[@]}"}; do [ "$p" = "$1" ] || keep+=("$p"); done
  PIDS=(${keep[@]+"${keep[@]}"})
}
# TERM to each, KILL to any left after 10 s, and each reaped.
stop_all() {
  local p left _
  for p in ${PIDS[@]+"${PIDS[@]}"}; do kill -TERM "$p" 2> /dev/null; done
  for _ in $(seq 1 100); do
    left=0
    for p in ${PIDS[@]+"${PIDS[@]}"}; do kill -0 "$p" 2> /dev/null && left=1; done
    [ "$left" = 0 ] && break
    sleep 0.1
  done
  for p in ${PIDS[@]+"${PIDS[@]}"}; do kill -KILL "$p" 2> /dev/null; done
  for p in ${PIDS[@]+"${PIDS[@]}"}; do wait "$p" 2> /dev/null; done
  PIDS=()
}
on_signal() {
  trap - INT TERM HUP
  say "interrupted: stopping the load and the suite this benchmark started"
  stop_all
  exit "$1"
}
trap stop_all EXIT
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
trap 'on_signal 129' HUP

# Runs a command in the background and waits for it, so that a signal is
# handled at once (bash runs traps only between commands). Returns its exit.
waited() {
  "$@" &
  local p=$! rc
  PIDS+=("$p")
  wait "$p"
  rc=$?
  forget "$p"
  return $rc
}

# ---- the knobs -----------------------------------------------------------------
case $RUNS in '' | *[!0-9]*) fail "NOISE_RUNS=$RUNS: need a whole number (0: A/A only)" ;; esac
case $AA_N in '' | *[!0-9]*) fail "NOISE_AA=$AA_N: need a whole number (0 leaves A/A out)" ;; esac
case $FROM in '' | *[!0-9]* | 0) fail "NOISE_RUN_FROM=$FROM: need a whole number of at least 1" ;; esac
[ "$RUNS" -gt 0 ] || [ "$AA_N" -gt 0 ] || fail "NOISE_RUNS=0 and NOISE_AA=0: nothing to measure"
LAST=$((FROM + RUNS - 1))
# The words of a comma-separated list that are among known, in known's
# order; ends the script (exit 2) at an unknown one, naming knob.
pick() {
  local knob=$1 known=$2 list w picked=""
  IFS=', ' read -r -a list <<< "$3"
  for w in ${list[@]+"${list[@]}"}; do
    case " $known " in
      *" $w "*) ;;
      *) fail "$knob: unknown word '$w' (known: ${known// /, })" ;;
    esac
  done
  for w in $known; do
    case " ${list[*]-} " in *" $w "*) picked="$picked $w" ;; esac
  done
  [ -n "$picked" ] || fail "$knob is empty (known: ${known// /, })"
  echo "$picked"
}
CLOCKS=""
[ "$AA_N" = 0 ] || CLOCKS=$(pick NOISE_AA_CLOCKS "events device" "$AA_CLOCKS") || exit 2
WANT=$(pick NOISE_INJECT "$ALL_INJECTIONS" "$INJECT") || exit 2
for b in "$BUILD/perftest" "$LOAD"; do
  [ -x "$b" ] || fail "$b is missing (make bench-noise builds it)"
done
[ "$AA_N" = 0 ] || [ -x "$BUILD/bench-fidelity" ] \
  || fail "$BUILD/bench-fidelity is missing (make bench-noise builds it)"
CPUS=$(nproc 2> /dev/null || echo 1)
HALF=$((CPUS / 2 > 0 ? CPUS / 2 : 1))
mkdir -p "$OUT" || fail "cannot create $OUT"

probe=$("$LOAD" probe 2>&1) || fail "no GPU run possible: $probe"
say "$probe; $CPUS CPUs for this process"

# The reference is quiet run 1, taken first: asked for, or none in $OUT yet.
if [ "$RUNS" -gt 0 ] && ! [ -s "$OUT/quiet/suite.1.json" ]; then
  [ "$FROM" = 1 ] || fail "no quiet reference in $OUT/quiet/suite.1.json: take it first (NOISE_RUN_FROM=1)"
  case " $WANT " in
    *" quiet "*) ;;
    *) say "no quiet reference in $OUT/quiet yet: taking it first"; WANT=" quiet$WANT" ;;
  esac
elif [ "$RUNS" -gt 0 ]; then
  case " $WANT " in
    *" quiet "*) ;;
    *) say "quiet reference: the one in $OUT/quiet ($(date -r "$OUT/quiet/suite.1.json" -u '+%F %T UTC'))" ;;
  esac
fi

# ---- the injections ------------------------------------------------------------
# N busy loops, started in the background (their pids kept).
start_spin() {
  local k
  for k in $(seq 1 "$1"); do
    "$LOAD" spin &
    PIDS+=("$!")
  done
  echo "cpu busy loops: $1 of $CPUS CPUs" >> "$2/inject.txt"
}

# The GPU co-tenant; returns once its first work is queued (its ready file),
# ends the script (exit 2) when it does not start within 120 s.
start_gpu() {
  local dir=$1 kind=$2 _
  rm -f "$dir/cotenant.ready"
  "$LOAD" gpu "$dir/cotenant.ready" "$kind" > "$dir/cotenant.log" 2>&1 &
  local p=$!
  PIDS+=("$p")
  for _ in $(seq 1 1200); do
    [ -s "$dir/cotenant.ready" ] && break
    kill -0 "$p" 2> /dev/null || break
    sleep 0.1
  done
  [ -s "$dir/cotenant.ready" ] \
    || fail "the GPU co-tenant did not start: $(tail -1 "$dir/cotenant.log" 2> /dev/null || echo 'no output')"
  echo "gpu co-tenant: pid $p ($LOAD gpu $kind), CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset}" >> "$dir/inject.txt"
}

start_injection() {
  local inj=$1 dir=$2
  echo "injection: $inj, $(date -u '+%F %T UTC'): suite runs ${FROM}-${LAST} (NOISE_RUNS=$RUNS), NOISE_AA=$AA_N${CLOCKS:+ on}$CLOCKS" >> "$dir/inject.txt"
  case $inj in
    cpu-all) start_spin "$CPUS" "$dir" ;;
    cpu-half) start_spin "$HALF" "$dir" ;;
    gpu) start_gpu "$dir" mixed ;;
    both) start_spin "$CPUS" "$dir" && start_gpu "$dir" mixed ;;
    copy | tiny | matmul | bursty | idle) start_gpu "$dir" "$inj" ;;
  esac
}

# The suite NOISE_RUNS times, then the A/A claims on both clocks.
measure() {
  local inj=$1 dir=$2 k c t0 rc
  for k in $(seq "$FROM" "$LAST"); do
    say "$inj: suite run $k ($FROM to $LAST)"
    t0=$(date +%s.%N)
    waited "$BUILD/perftest" --require-gpu --verbose --color=never "--filter=$FILTER" \
      "--json=$dir/suite.$k.json" > "$dir/suite.$k.log" 2>&1
    rc=$?
    echo "suite_exit $rc seconds $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" \
      >> "$dir/suite.$k.log"
    [ "$inj" = quiet ] && [ "$k" = 1 ] && ! [ -s "$dir/suite.1.json" ] \
      && fail "the quiet reference run wrote no report (exit $rc): $(tail -2 "$dir/suite.1.log" | head -1)"
  done
  [ "$AA_N" -gt 0 ] || return 0
  for c in $CLOCKS; do
    say "$inj: A/A, $AA_N + $AA_N + $((AA_N / 5)) comparisons on the $c clock"
    waited "$BUILD/bench-fidelity" aa "$AA_N" ew_256k "$c" > "$dir/aa.$c.txt" 2> "$dir/aa.$c.err" \
      || say "$inj: A/A on the $c clock failed: $(tail -1 "$dir/aa.$c.err")"
  done
}

# Removes what this run will measure again from dir.
clear_old() {
  local dir=$1 c
  for k in $(seq "$FROM" "$LAST"); do rm -f "$dir/suite.$k.json" "$dir/suite.$k.log"; done
  [ "$AA_N" = 0 ] || for c in $CLOCKS; do rm -f "$dir/aa.$c.txt" "$dir/aa.$c.err"; done
}

for inj in $WANT; do
  dir=$OUT/$inj
  mkdir -p "$dir" || fail "cannot create $dir"
  clear_old "$dir"
  say "$inj: starting"
  start_injection "$inj" "$dir"
  measure "$inj" "$dir"
  stop_all
  [ -f "$dir/cotenant.log" ] && cat "$dir/cotenant.log" >> "$dir/inject.txt" && rm -f "$dir/cotenant.log"
done

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader \
  > "$OUT/gpu.txt" 2> /dev/null || echo "$probe" > "$OUT/gpu.txt"
python3 bench/noise_summary.py "$OUT"
