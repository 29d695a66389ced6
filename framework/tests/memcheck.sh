#!/usr/bin/env bash
# memcheck.sh — runs the framework's tests under ASan+UBSan or valgrind and fails on any report.
#
#   memcheck.sh asan BUILD       BUILD holds sanitizer-built selftest and fixture
#   memcheck.sh valgrind BUILD   BUILD holds an unsanitized build (-O1, no -march=native)
#
# Every process the tests start writes its sanitizer or memcheck log to a
# file under BUILD/memcheck-logs; one that is killed on purpose writes no
# report. Exit status: the tests' own (1 when a test failed), or 1
# when any report was written even though every test passed; 2 on bad usage.
set -uo pipefail
mode=${1:-}
build=${2:-}
if [[ -z $build || ! -x $build/selftest || ! -x $build/fixture-perftest ]]; then
  echo "memcheck.sh: usage: memcheck.sh asan|valgrind BUILD (BUILD/selftest and BUILD/fixture-perftest must exist)" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
logs=$build/memcheck-logs
rm -rf "$logs" && mkdir -p "$logs" || exit 2
logs=$(cd "$logs" && pwd)

case $mode in
asan)
  # protect_shadow_gap=0: the CUDA driver maps memory where ASan would
  # reserve its shadow gap (on GPU machines). handle_segv=0 and
  # handle_abort=0: the crash fixtures must die by their signal, as they do
  # without sanitizers, so that the supervisor's report can be checked.
  export ASAN_OPTIONS="log_path=$logs/asan:protect_shadow_gap=0:handle_segv=0:handle_abort=0:detect_leaks=1:abort_on_error=0:exitcode=86"
  export UBSAN_OPTIONS="log_path=$logs/ubsan:print_stacktrace=1:halt_on_error=1:exitcode=87"
  export LSAN_OPTIONS="suppressions=$here/sanitizers/lsan.supp:print_suppressions=0"
  "$build/selftest" --fixture="$build/fixture-perftest" | tee "$build/memcheck.out"
  rc=$?
  ;;
valgrind)
  command -v valgrind >/dev/null || { echo "memcheck.sh: valgrind not found: install valgrind (apt-get install valgrind)" >&2; exit 2; }
  # The selftest runs every fixture command through this wrapper; workers are
  # exec'd by the supervisor and followed with --trace-children.
  export PERF_SELFTEST_WRAP="valgrind --error-exitcode=88 --leak-check=full \
--errors-for-leak-kinds=definite --show-leak-kinds=definite --trace-children=yes \
--child-silent-after-fork=yes --suppressions=$here/sanitizers/valgrind.supp \
--log-file=$logs/vg.%p"
  valgrind --error-exitcode=88 --leak-check=full --errors-for-leak-kinds=definite \
    --show-leak-kinds=definite \
    --suppressions="$here/sanitizers/valgrind.supp" --log-file="$logs/vg-selftest.%p" \
    "$build/selftest" --fixture="$build/fixture-perftest" | tee "$build/memcheck.out"
  rc=$?
  ;;
*)
  echo "memcheck.sh: unknown mode '$mode' (asan or valgrind)" >&2
  exit 2
  ;;
esac

# A report: a sanitizer's log file (they write one only to report), or a
# valgrind log whose summary counts errors (definite leaks count as errors).
# A process killed on purpose (a timeout, kill -9) leaves no summary.
list_reports() {
  if [[ $mode == valgrind ]]; then
    grep -lE 'ERROR SUMMARY: [1-9]' -r "$1" | sort
  else
    # LeakSanitizer's "Unable to get registers from thread N." alone is no
    # finding: the thread was exiting while the leak check stopped the
    # process; LSan then scans its whole stack, or passes over it when it is
    # gone. A real report has an ERROR line and is kept.
    find "$1" -type f -size +0 | sort | while IFS= read -r f; do
      grep -qvE '^==[0-9]+== *$|^==[0-9]+==Unable to get registers from thread [0-9]+\.$' "$f" &&
        echo "$f"
    done
  fi
}

# The check must be able to fail: the planted leak and overflow (opt-in
# fixture tests, each in its own worker) must each leave a report.
canary=$logs/../memcheck-canary
rm -rf "$canary" && mkdir -p "$canary"
# The same options with the canary's directory for the log directory.
canary_opts() { local from=$logs to; to=$(cd "$canary" && pwd); printf '%s' "${1//"$from"/"$to"}"; }
(
  export ASAN_OPTIONS=$(canary_opts "${ASAN_OPTIONS:-}")
  export UBSAN_OPTIONS=$(canary_opts "${UBSAN_OPTIONS:-}")
  wrap=$(canary_opts "${PERF_SELFTEST_WRAP:-}")
  $wrap "$build/fixture-perftest" --filter='memcheck.*' --isolate --color=never >"$canary/../memcheck-canary.out" 2>&1
)
found=$(list_reports "$canary" | while IFS= read -r f; do cat "$f"; done)
if ! grep -qE "detected memory leaks|definitely lost: [1-9]" <<<"$found" ||
   ! grep -qiE "heap-buffer-overflow|insufficient space|Invalid write" <<<"$found"; then
  echo "memcheck ($mode): the planted leak and overflow (fixture memcheck.*) were not both reported: the check is blind" >&2
  exit 1
fi
echo "memcheck ($mode): the planted leak and overflow were reported (check is live)"

reports=$(list_reports "$logs")
if [[ -n $reports ]]; then
  echo
  echo "memcheck ($mode): $(echo "$reports" | wc -l) report(s) in $logs:"
  for f in $reports; do
    echo "---- $f"
    grep -vE '^==[0-9]+== *$' "$f" | head -n 40
  done
  [[ $rc -eq 0 ]] && rc=1
else
  echo "memcheck ($mode): no reports"
fi
# The run ends, as make test does, with its count line.
echo
grep -E '^[0-9]+ passed, [0-9]+ failed' "$build/memcheck.out" | tail -n 1
exit $rc
