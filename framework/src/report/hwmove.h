/* hwmove.h — the hardware move: a workload's times on two GPUs against their peaks' prediction. */
#ifndef PERF_HWMOVE_H
#define PERF_HWMOVE_H

#include <stddef.h>
#include <stdio.h>

#include "baseline/baseline.h"
#include "cli/options.h"

/* When a GPU's baseline file is written (--update-baselines) beside
 * another GPU's, each workload both files hold is shown with its time on
 * each, their ratio, and the ratio report/roofline.h predicts from its
 * declared work and the two files' calibration entries; a workload whose
 * measured ratio is farther from that prediction than both entries'
 * tolerances and PERF__HWMOVE_MARGIN allow, in either direction, is an
 * unexpected change of the hardware move: (1 + ta)(1 + tb)(1 + margin).
 * The margin is what the roofline cannot know: a kernel's share of its
 * GPU's peak differs between GPUs (on an H100 the suite's fused
 * element-wise kernel reached 0.72 of the DRAM copy's bandwidth, on an
 * H200 0.61: 1.18x, issue 49). perftest --compare-baselines (and
 * perfgate-baselines, without CUDA) prints the same tables from files
 * alone. baselines/README.md, "The hardware move", explains them. */
#define PERF__HWMOVE_MARGIN 0.15

/* How far a measured ratio may be from its prediction before it is
 * unexpected, as a fraction: (1 + tol_a)(1 + tol_b)(1 + margin) - 1.
 * Never fails. */
double perf__hwmove_allowed(double tol_a, double tol_b);

/* How far measured is from predicted (both ratios > 0), as a fraction of
 * the time: > 0 when the second GPU is slower than predicted
 * (predicted / measured - 1), < 0 when faster (-(measured / predicted -
 * 1)). Never fails. */
double perf__hwmove_off(double measured, double predicted);

/* A table's counts. */
typedef struct perf__hwmove_count {
  size_t both;       /* workloads both files hold (perfgate's own entries aside) */
  size_t predicted;  /* of them, with a prediction */
  size_t unexpected; /* of those, beyond it */
  size_t only_from, only_to; /* workloads one file holds and the other does not */
} perf__hwmove_count;

/* Prints the table of the move from `from` (the other GPU's file, at
 * from_path) to `to` (at to_path) on out, and as Markdown on md (NULL:
 * none): the calibrations both hold, a row and a line per workload both
 * hold (in to's order), the count of unexpected changes last. Returns the
 * counts. Never fails (stream errors show in ferror). */
perf__hwmove_count perf__hwmove_table(const perf__baseline *from, const char *from_path,
                                      const perf__baseline *to, const char *to_path, FILE *out,
                                      FILE *md);

/* After --update-baselines wrote b to path: on stdout, a table from each
 * other GPU's file in path's directory (in name order; host files, path
 * itself and files of b's GPU model are not compared), kept as Markdown
 * for perf__hwmove_markdown. A file that cannot be read is named on
 * stderr with why, and gets no table: the update, which wrote its file,
 * goes on and its exit code stays. Nothing for a host's file. Never
 * fails. */
void perf__hwmove_after_update(const char *path, const perf__baseline *b);

/* The Markdown of the tables this process's update printed (for its
 * --markdown report, report/report.c), onto f; nothing when there were
 * none. Never fails. */
void perf__hwmove_markdown(FILE *f);

/* --compare-baselines=FILE: the tables an update that wrote FILE prints,
 * from each other GPU's file in cli->baseline_dir, with --markdown=OUT
 * also as Markdown in OUT (replaced whole). Returns the exit code: 0 when
 * each was printed (unexpected changes included: the tables inform a
 * review), 2 after a message for a FILE that cannot be read, is
 * malformed or is a host's, a directory that holds no other GPU's file
 * or cannot be read, another GPU's file that cannot be read (the others'
 * tables are printed), or an OUT that cannot be written. */
int perf__hwmove_run(const perf__options_cli *cli);

#endif
