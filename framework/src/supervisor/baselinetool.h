/* baselinetool.h — perfgate-baselines: --check-baselines as a program that needs no CUDA. */
/* It is built from modules that need no CUDA (libyaml alone), for CI
 * machines without a GPU or the CUDA libraries. */
#ifndef PERF_BASELINETOOL_H
#define PERF_BASELINETOOL_H

/* The options perfgate-baselines takes (rows of cli/options.h's
 * PERF__OPTIONS_MAP): the baseline directory, --compare-baselines (with
 * --markdown) and what every program takes. --check-baselines is what it
 * does otherwise (make check-baselines ARGS=... may give it). */
#define PERF__BASELINETOOL_TAKES                                                          \
  "--baseline-dir", "--check-baselines", "--compare-baselines", "--markdown", "--help",   \
      "--version", "--color"

/* The program: validates every baseline file of --baseline-dir=DIR
 * (default baselines) as perftest --check-baselines does
 * (supervisor/baselinedir.h, with this host's file named as a run here
 * would read it), running no test; or, with --compare-baselines=FILE,
 * prints the hardware move to FILE's GPU as perftest does
 * (report/hwmove.h). Returns its exit code: 0 when all are valid (the
 * tables printed), 2 with a message naming the problem (a malformed file,
 * a file no run reads, a directory that cannot be read, an option of
 * perftest's that it does not take, --markdown without
 * --compare-baselines). Never fails otherwise. */
int perf__baselinetool_main(int argc, char **argv);

#endif
