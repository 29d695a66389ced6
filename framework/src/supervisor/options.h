/* options.h — the perftest command line: options, their validation and the help text. */
#ifndef PERF_OPTIONS_H
#define PERF_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum perf__color { PERF__COLOR_AUTO, PERF__COLOR_ALWAYS, PERF__COLOR_NEVER } perf__color;

typedef struct perf__cli {
  int help, list, verbose, require_gpu, isolate, allow_no_sync_check;
  int print_baseline_file;
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
  int device_label;             /* set in a --devices child: its GPU (else -1) */
  char **merge_in;              /* those reports */
  int merge_n;
  long shard_index, shard_total; /* set by perf_main: this run's shard */
  int argc;                     /* set by perf_main: the command line, for --json */
  char **argv;
  int worker_in, worker_out; /* >= 0: this process is a worker */
} perf__cli;

/* Parses argv into *cli (defaults first). Returns 0, or PERF__EUSAGE with a
 * one-line message naming the bad argument in err[len]. */
int perf__options_parse(int argc, char **argv, perf__cli *cli, char *err,
                    size_t len);
/* Prints the help text. */
void perf__options_help(FILE *f, const char *prog);

#endif
