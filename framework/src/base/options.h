/* options.h — the perftest command line: options, their validation and the help text. */
#ifndef PERF_OPTIONS_H
#define PERF_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum perf__color { PERF__COLOR_AUTO, PERF__COLOR_ALWAYS, PERF__COLOR_NEVER } perf__color;

typedef struct perf__cli {
  int help, version, list, verbose, require_gpu, isolate, allow_no_sync_check;
  int print_baseline_file;
  int check_baselines; /* --check-baselines: validate the directory, run nothing */
  int update_baselines, force, strict_baselines, strict_improvements;
  int baseline_check_all; /* --baseline-check=all */
  const char *baseline_dir; /* default "baselines" */
  perf__color color;
  const char *filter; /* NULL: every test */
  double timeout_s;   /* per test, supervisor-side */
  double budget_s;    /* per claim, sampling */
  uint64_t seed;
  const char *junit, *markdown; /* report files, NULL: none */
  int tap;                      /* TAP 14 on stdout, the console report on stderr */
  uint64_t repeat;              /* run the selection this many times (>= 1) */
  int shuffle;                  /* each repetition in a random order (from seed) */
  FILE *tap_out;                /* set by perf_main when tap: the original stdout */
  const char *json;             /* --json=FILE: everything, every sample */
  const char *plots;            /* --plots=DIR: SVG charts */
  const char *html;             /* --html=FILE: one self-contained report page */
  const char *merge;            /* --merge=OUT: merge the reports that follow */
  const char *devices;          /* --devices=all|0,1: one run per GPU, in parallel */
  const char *history;          /* --history=PATH|URI: record the run in this store */
  const char *commit, *branch;  /* what to record it under (NULL: detect) */
  const char *trend;            /* --trend[=FILTER]: read the history, run nothing
                                   ("": the tests --filter picks) */
  int device_label;             /* set in a --devices child: its GPU (else -1) */
  char **merge_in;              /* those reports */
  int merge_n;
  long shard_index, shard_total; /* set by perf_main: this run's shard */
  int argc;                     /* set by perf_main: the command line, for --json */
  char **argv;
  int worker_in, worker_out; /* >= 0: this process is a worker */
} perf__cli;

/* The one table of perftest options, in help order:
 *   X(name, short, kind, field, default, value, help)
 * name: "--name", given as --name=V or --name V (a flag: --name; merge: only
 * --name=V, the rest of the line its inputs); short: "-x" for a flag, or "";
 * kind: how its value is read (options.c: read_<kind>) - flag, text, dir, gpus,
 * seconds, count, repeats, color, check, worker, merge, store, label, trend; field: the perf__cli
 * member it sets; default: that member's value when the option is not given;
 * value: the placeholder after '=' in the help ("" none); help: its help text,
 * lines split by '\n' ("" none; NULL: internal, not listed). */
#define PERF__OPTIONS_MAP(X)                                                                    \
  X("--list", "", flag, list, 0, "", "list the tests (after --filter) and exit")                \
  X("--filter", "", text, filter, NULL, "POS[:POS][-NEG[:NEG]]",                                \
    "run tests whose suite.name matches a POS glob\n"                                           \
    "and no NEG glob (* and ?; GoogleTest syntax)\n"                                            \
    "(opt-in tests, such as faults.*, only where a\n"                                           \
    "POS names their suite: --filter='faults.*')")                                              \
  X("--timeout", "", seconds, timeout_s, 60, "SECONDS",                                         \
    "fail a test still running after this (default 60)")                                        \
  X("--budget", "", seconds, budget_s, 2, "SECONDS",                                            \
    "sampling time per claim before it is called\n"                                             \
    "INCONCLUSIVE (default 2)")                                                                 \
  X("--seed", "", count, seed, 1, "N", "bootstrap and --shuffle seed (default 1)")              \
  X("--repeat", "", repeats, repeat, 1, "N", "run the selected tests N times (default 1)")      \
  X("--shuffle", "", flag, shuffle, 0, "",                                                      \
    "run them in a random order (a new one each repeat)")                                       \
  X("--require-gpu", "", flag, require_gpu, 0, "",                                              \
    "exit 2 when a test is skipped for want of a GPU")                                          \
  X("--isolate", "", flag, isolate, 0, "", "a fresh worker for every test")                     \
  X("--allow-no-sync-check", "", flag, allow_no_sync_check, 0, "",                              \
    "skip host-sync checks when CUPTI cannot attach\n"                                          \
    "(a profiler holds it) instead of failing them")                                            \
  X("--baseline-dir", "", dir, baseline_dir, "baselines", "DIR",                                \
    "where per-GPU baseline files live (default baselines)")                                    \
  X("--print-baseline-file", "", flag, print_baseline_file, 0, "",                              \
    "print the baseline file this machine uses and exit")                                       \
  X("--check-baselines", "", flag, check_baselines, 0, "",                                      \
    "validate every file in the baseline directory and exit\n"                                  \
    "(no test runs, no GPU needed; exit 2 at a malformed one)")                                 \
  X("--baseline-check", "", check, baseline_check_all, 0, "all",                                \
    "compare every measured workload with its baseline\n"                                       \
    "(default: claimed, only PERF_EXPECT_BASELINE)")                                            \
  X("--strict-baselines", "", flag, strict_baselines, 0, "",                                    \
    "exit 2 when this machine has no baseline (entry)")                                         \
  X("--strict-improvements", "", flag, strict_improvements, 0, "",                              \
    "fail a baseline check that got faster beyond tolerance")                                   \
  X("--update-baselines", "", flag, update_baselines, 0, "",                                    \
    "measure every baseline entry in 3 runs and rewrite\n"                                      \
    "this machine's file (make baseline-update)")                                               \
  X("--force", "", flag, force, 0, "", "write baselines even though a test failed")             \
  X("--junit", "", text, junit, NULL, "FILE",                                                   \
    "write a JUnit XML report (one testcase per test)")                                         \
  X("--markdown", "", text, markdown, NULL, "FILE",                                             \
    "write a Markdown summary table (for a CI step summary)")                                   \
  X("--json", "", text, json, NULL, "FILE",                                                     \
    "write everything as JSON: run, fingerprint, tests,\n"                                      \
    "claims and every sample with its clock")                                                   \
  X("--plots", "", text, plots, NULL, "DIR",                                                    \
    "write SVG charts into DIR (created if missing): time\n"                                    \
    "against each sweep's parameter, and each ratio claim\n"                                    \
    "against what it needs")                                                                    \
  X("--html", "", text, html, NULL, "FILE",                                                     \
    "write one self-contained HTML report: summary,\n"                                          \
    "failures first, every test's charts inline")                                               \
  X("--tap", "", flag, tap, 0, "", "TAP 14 on stdout; the console report goes to stderr")       \
  X("--history", "", store, history, NULL, "PATH|URI",                                       \
    "record the run (commit, GPU, every claim and workload)\n"                                \
    "in a history: a SQLite file (created if missing) or\n"                                   \
    "a PostgreSQL database, postgresql://...")                                                 \
  X("--commit", "", label, commit, NULL, "SHA",                                                  \
    "the commit to record (default: the CI's variables,\n"                                    \
    "else git rev-parse HEAD)")                                                                 \
  X("--branch", "", label, branch, NULL, "NAME", "the branch to record (default: the CI's, else git's)") \
  X("--trend", "", trend, trend, NULL, "FILTER",                                                \
    "with --history: each GPU's series over commits and\n"                                    \
    "their change points (commit, size, p); runs no test.\n"                                  \
    "FILTER (else --filter) picks tests; --branch one\n"                                      \
    "branch's runs; --html and --plots draw the series")                                                                          \
  X("--devices", "", gpus, devices, NULL, "all|0,1",                                            \
    "run the tests on each listed GPU in parallel, one\n"                                       \
    "worker per GPU; output and reports per device")                                            \
  X("--merge", "", merge, merge, NULL, "OUT A.json B.json ...",                                 \
    "merge the --json reports of all shards into OUT and\n"                                     \
    "exit with the run's code (2 if a shard is missing)")                                       \
  X("--verbose", "-v", flag, verbose, 0, "", "timer floors, warm-up and every look")            \
  X("--color", "", color, color, PERF__COLOR_AUTO, "auto|always|never", "")                     \
  X("--help", "-h", flag, help, 0, "", "this text")                                             \
  X("--version", "", flag, version, 0, "", "print perfgate's version and exit")                 \
  X("--perf-worker", "", worker, worker_in, -1, "IN,OUT", NULL)

/* Parses argv into *cli (defaults first). Returns 0, or PERF__EUSAGE with a
 * one-line message naming the bad argument in err[len]. */
int perf__options_parse(int argc, char **argv, perf__cli *cli, char *err,
                    size_t len);
/* Prints the help text: usage, then every listed row of PERF__OPTIONS_MAP. */
void perf__options_help(FILE *f, const char *prog);

#endif
