#!/usr/bin/env bash
# claimpath.sh — builds a tree with -finstrument-functions and follows one FASTER claim
# through it (bench/claimpath/claimpath.py). Usage: bench/claimpath/claimpath.sh [TREE]
# (TREE: a perfgate checkout, default this one; its build goes to /tmp/claimpath.<name>).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "${1:-$here/../..}" && pwd)
out=/tmp/claimpath.$(basename "$tree")
C=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$out/logs"; rm -f "$out"/logs/*
make -C "$tree" -s -j"$(nproc)" BUILD="$out/build" CFLAGS="-O0 -g -fno-inline -finstrument-functions" \
  "$out/build/libperfgate.a" "$out/build/libperfgate_main.a" >/dev/null
gcc -std=c11 -O0 -g -c -o "$out/hook.o" "$here/hook.c"
gcc -std=c11 -O0 -g -no-pie -I"$tree/framework/include" -o "$out/faster" "$here/faster.c" \
  "$out/hook.o" "$out/build/libperfgate_main.a" "$out/build/libperfgate.a" -no-pie \
  -L"$C/lib64" -L"$C/extras/CUPTI/lib64" -lcupti -lcudart ${YAML_LIBS:--lyaml} \
  ${SQLITE_LIBS:--lsqlite3} -lm -lpthread -ldl -Wl,-rpath,"$C/lib64"
(cd "$out" && CLAIMPATH_DIR="$out/logs" ./faster --seed=1 >"$out/run.txt" 2>&1) || true
tail -1 "$out/run.txt"
python3 "$here/claimpath.py" "$out/faster" "$out/logs" perf__faster "$tree"
