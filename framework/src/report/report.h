/* report.h — the one entry point for a run's reports, in every format. */
/* A table of report formats (one document each, to a file or stdout),
 * checked up front, then written with the charts. */
#ifndef PERF_REPORT_H
#define PERF_REPORT_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "io/json.h"
#include "cli/options.h"
#include "util/registry.h"
#include "report/result.h"

/* What a report is written from: the run's command line, tests, results,
 * exit code (defined in report.c). */
typedef struct perf__report_run perf__report_run;

/* A report format: a row of PERF__OPTIONS_REPORTS (cli/options.h) with its
 * writer, a struct of methods in the manner of Redis's rio. */
/* A writer of a report's own document onto f (doc: that report's, as
 * report/commitdoc.h's perf__commitdoc). Returns 0, or nonzero when it ran
 * out of memory (stream errors show in ferror(f)). */
typedef int perf__report_doc_fn(FILE *f, const void *doc);

typedef struct perf__report_format {
  const char *opt;         /* its option: "--json" */
  size_t field;            /* offsetof(perf__options_cli, ...) of the option's value: a
                              path (const char *) for a file, a flag (int) for stdout */
  perf__options_dest dest; /* where it goes: a file or the run's stdout */
  perf__options_gpus gpus; /* its files with --devices */
  /* Writes the document for run onto f. Returns 0, or nonzero when it ran
   * out of memory (stream errors show in ferror(f)). */
  int (*write)(FILE *f, const perf__report_run *run);
  /* Writes --commit-report's document (report/commitdoc.h's) in this
   * format; NULL where the row's commit column refuses it. */
  perf__report_doc_fn *commit;
  /* Writes --trend's document (report/trenddoc.h's) in this format; NULL
   * where the row's trend column refuses it. */
  perf__report_doc_fn *trend;
} perf__report_format;

/* How many formats PERF__OPTIONS_REPORTS has. */
#define PERF__X(...) +1
enum { PERF__REPORT_NFORMATS = 0 PERF__OPTIONS_REPORTS(PERF__X) };
#undef PERF__X

/* The formats, in PERF__OPTIONS_REPORTS's order, then a row whose opt is
 * NULL. Never fails. */
const perf__report_format *perf__report_formats(void);

/* The file cli names for format f (NULL: not asked for, or f goes to
 * stdout). Never fails. */
const char *perf__report_path(const perf__options_cli *cli, const perf__report_format *f);

/* Points cli's value for format f at path (a --devices child's own file);
 * nothing for a format that goes to stdout. Never fails. */
void perf__report_set_path(perf__options_cli *cli, const perf__report_format *f,
                           const char *path);

/* Writes path (option opt's) whole with w's document doc, composed in
 * memory first and replaced atomically (perf__file_replace). Returns 0,
 * or PERF__EIO with a message on stderr. */
int perf__report_write_doc(const char *opt, const char *path, perf__report_doc_fn *w,
                           const void *doc);

/* The format cli asks for that goes to stdout, or NULL. Never fails. */
const perf__report_format *perf__report_on_stdout(const perf__options_cli *cli);

/* Checks before any test runs that --plots' directory can be made (it is)
 * and that each report file named on the command line can be created (its
 * directory exists and is writable; with --devices, not written in place
 * unless the format is merged). Returns 0, or PERF__EUSAGE with a message
 * naming the file in err[len]. */
int perf__report_check(const perf__options_cli *cli, char *err, size_t len);

/* Records the run (--history), then writes the charts (--plots) and each
 * format the command line asks for, in table order: results[i] belongs to
 * tests[i % ntests]. Files are replaced atomically (a temporary file in
 * the same directory, then rename); a format on stdout goes to
 * cli->report_out (stdout as the run began; nothing when NULL). Returns 0,
 * or PERF__EIO after printing which report could not be written. */
int perf__report_write(const perf__options_cli *cli, const perf__registry_test **tests, size_t ntests,
                 const perf__result *results, size_t nresults, time_t started, int exit_code);

/* cli's --plots=DIR and --html=FILE (either may be NULL) for results
 * r[0..n) of a run that began at started and exits with code; the page
 * shows cli's command line. Returns 0, or PERF__EIO after printing what
 * could not be written. */
int perf__report_pages(const perf__options_cli *cli, const perf__result *r, size_t n,
                       time_t started, int code);

/* Replaces path with text atomically (perf__file_replace); text that ran
 * out of memory is not written. Returns 0, or PERF__EIO after printing
 * "NAME: cannot write OPT=PATH: why" on stderr (NAME: perf__progname). */
int perf__report_save(const char *opt, const char *path, const perf__json *text);

#endif
