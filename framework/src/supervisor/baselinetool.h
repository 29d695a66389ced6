/* baselinetool.h — perfgate-baselines: --check-baselines as a program of its own, built from modules that need no CUDA (libyaml alone), for CI machines without a GPU or the CUDA libraries. */
#ifndef PERF_BASELINETOOL_H
#define PERF_BASELINETOOL_H

/* The options perfgate-baselines takes (rows of base/options.h's
 * PERF__OPTIONS_MAP): the baseline directory and what every program takes.
 * --check-baselines is what it does anyway (make check-baselines
 * ARGS=... may give it). */
#define PERF__BASELINETOOL_TAKES "--baseline-dir", "--check-baselines", "--help", "--version", "--color"

/* The program: validates every baseline file of --baseline-dir=DIR
 * (default baselines) as perftest --check-baselines does
 * (supervisor/baselinedir.h, with this host's file named as a run here
 * would read it), running no test. Returns its exit code: 0 when all are
 * valid, 2 with a message naming the problem (a malformed file, a file no
 * run reads, a directory that cannot be read, an option of perftest's
 * that it does not take). Never fails otherwise. */
int perf__baselinetool_main(int argc, char **argv);

#endif
