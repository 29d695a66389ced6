/* report.h — the one entry point for a run's reports: checks the files named up front, then writes each format (JSON, JUnit, Markdown, TAP, HTML, charts). */
#ifndef PERF_REPORT_H
#define PERF_REPORT_H

#include <stddef.h>
#include <time.h>

#include "base/json.h"
#include "base/options.h"
#include "base/registry.h"
#include "report/result.h"

/* The report files a run writes, in the order they are checked:
 * X(option, perf__options_cli field, merged) - merged: with --devices, the file
 * named is written too (the GPUs' reports merged into it), not only each
 * GPU's NAME.gpuK.EXT. --plots (a directory) and --tap (stdout) are no
 * files. */
#define PERF__REPORT_FILES(X) \
  X("--junit", junit, 0)      \
  X("--markdown", markdown, 0) \
  X("--json", json, 1)        \
  X("--html", html, 0)

/* Checks before any test runs that each report file named on the command
 * line can be created (its directory exists and is writable). Returns 0, or
 * PERF__EUSAGE with a message naming the file in err[len]. */
int perf__report_check(const perf__options_cli *cli, char *err, size_t len);

/* Writes the reports the command line asks for (--json, --junit,
 * --markdown, --plots, --html, --tap): results[i] belongs to
 * tests[i % ntests]. Files are replaced atomically (a temporary file in the
 * same directory, then rename); TAP goes to tap (stdout as the run began).
 * Returns 0, or PERF__EIO after printing which report could not be written. */
int perf__report_write(const perf__options_cli *cli, const perf__registry_test **tests, size_t ntests,
                 const perf__result *results, size_t nresults, time_t started,
                 FILE *tap, int exit_code);

/* --plots=DIR and --html=FILE (either may be NULL) for results r[0..n) of
 * a run that began at started and exits with code. Returns 0, or PERF__EIO
 * after printing what could not be written. */
int perf__report_pages(const char *plots, const char *html, const perf__result *r, size_t n,
                       time_t started, int code, int argc, char **argv);

/* Replaces path with text atomically (perf__file_replace); text that ran
 * out of memory is not written. Returns 0, or PERF__EIO after printing
 * "NAME: cannot write OPT=PATH: why" on stderr (NAME: perf__progname). */
int perf__report_save(const char *opt, const char *path, const perf__json *text);

#endif
