#!/usr/bin/env bash
# nvbench-build.sh — builds NVIDIA nvbench and bench/nvbench_kernels.cu into one binary, offline.
# It needs no CMake.
#
# usage: bench/nvbench-build.sh NVBENCH_SRC FMT_SRC JSON_SRC OUT_BINARY
#   NVBENCH_SRC  a checkout of github.com/NVIDIA/nvbench (the folder holding nvbench/)
#   FMT_SRC      a checkout of github.com/fmtlib/fmt (used header-only)
#   JSON_SRC     a checkout of github.com/nlohmann/json (single_include/, for --json)
# The result times the kernels of kernels/ that bench/fidelity.c times, so
# that `make bench-compare NVBENCH=OUT_BINARY` can run both side by side.
# NVML and CUPTI are left out of nvbench (its cold and batch timers need
# neither). Exit 2 on a bad argument, 1 when a compile fails.
set -eu
if [ $# -ne 4 ] || [ ! -f "$1/nvbench/nvbench.cuh" ] || [ ! -f "$2/include/fmt/format.h" ] ||
   [ ! -f "$3/single_include/nlohmann/json.hpp" ]; then
  echo "usage: $0 NVBENCH_SRC FMT_SRC JSON_SRC OUT_BINARY (nvbench/nvbench.cuh," \
       "include/fmt/format.h and single_include/nlohmann/json.hpp must exist)" >&2
  exit 2
fi
NV=$(cd "$1" && pwd); FMT=$(cd "$2" && pwd); JSON=$(cd "$3" && pwd); OUTBIN=$4
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NVCC=${NVCC:-nvcc}; ARCH=${CUDA_ARCH:-sm_90}; JOBS=${JOBS:-$(nproc)}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
mkdir -p "$W/gen/nvbench/detail" "$W/gen/nvbench/internal" "$W/obj"

# The headers nvbench's CMake would generate.
sed -e 's|#cmakedefine NVBENCH_HAS_NVML|/* NVML left out */|' \
    -e 's|#cmakedefine NVBENCH_HAS_CUPTI|/* CUPTI left out */|' \
    "$NV/nvbench/config.cuh.in" > "$W/gen/nvbench/config.cuh"
printf '#pragma once\n#define NVBENCH_VERSION_MAJOR 0\n#define NVBENCH_VERSION_MINOR 0\n#define NVBENCH_VERSION_PATCH 0\n' \
  > "$W/gen/nvbench/detail/version.cuh"
printf '#pragma once\n#define NVBENCH_GIT_BRANCH "snapshot"\n#define NVBENCH_GIT_SHA1 "snapshot"\n#define NVBENCH_GIT_VERSION "snapshot"\n' \
  > "$W/gen/nvbench/detail/git_revision.cuh"
for doc in cli_help cli_help_axis; do
  { printf '#include <string>\nnamespace {\nconst std::string %s_text =\nR"nvbench_doc(' "$doc"
    cat "$NV/docs/$doc.md"; printf ')nvbench_doc";\n}\n'; } > "$W/gen/nvbench/internal/$doc.cuh"
done

# nvbench's sources, less the parts for NVML, CUPTI and its own main.
srcs=$(cd "$NV" && ls nvbench/*.cu nvbench/*.cxx nvbench/detail/*.cu nvbench/detail/*.cxx nvbench/internal/*.cxx 2> /dev/null |
       grep -v -e cupti -e main.cu -e json_printer.cxx)
FLAGS="-std=c++17 -O2 -arch=$ARCH -I$W/gen -I$NV -I$FMT/include -I$JSON/single_include -DFMT_HEADER_ONLY --expt-relaxed-constexpr --extended-lambda"
export NV W NVCC FLAGS
echo "$srcs" | xargs -P "$JOBS" -I{} sh -c \
  '"$NVCC" $FLAGS -x cu -c "$NV/{}" -o "$W/obj/$(echo {} | tr / _).o" || exit 255'
"$NVCC" $FLAGS -I"$ROOT/kernels" -c "$ROOT/bench/nvbench_kernels.cu" -o "$W/obj/bench.o"
for k in elementwise fill gemm; do
  "$NVCC" -O3 -arch=$ARCH -I"$ROOT/kernels" -c "$ROOT/kernels/$k.cu" -o "$W/obj/k_$k.o"
done
"$NVCC" -arch=$ARCH "$W"/obj/*.o -o "$OUTBIN" -lcublas -lcuda
echo "built $OUTBIN"
