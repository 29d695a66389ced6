#!/usr/bin/env bash
# GPU runner job: build everything, run the self-tests and the perf suite, keep logs.
#   ci/gpu-run.sh [LOG_DIR] [extra make variables...]
# Exit status: that of the first failing step (make test, then make perftest).
set -uo pipefail
cd "$(dirname "$0")/.."
logs=${1:-build/logs}
shift || true
mkdir -p "$logs"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv 2>&1 | tee "$logs/gpu.txt"
make -j"$(nproc)" "$@" all build/selftest build/fixture-perftest 2>&1 | tee "$logs/build.log" || exit 2
make "$@" test 2>&1 | tee "$logs/selftest.log"
st=${PIPESTATUS[0]}
make "$@" perftest ARGS="--verbose --require-gpu" 2>&1 | tee "$logs/perftest.log"
pt=${PIPESTATUS[0]}
[ "$st" -ne 0 ] && exit "$st"
exit "$pt"
