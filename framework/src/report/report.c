/* report.c — the one entry point for a run's reports, in every format. */
/* A table of report formats (one document each, to a file or stdout),
 * checked up front, then written with the charts. */
#define _GNU_SOURCE
#include "report/report.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/file.h"
#include "io/json.h"
#include "util/status.h"
#include "report/commitdoc.h"
#include "report/html.h"
#include "report/hwmove.h"
#include "report/jsonreport.h"
#include "report/junit.h"
#include "report/markdown.h"
#include "report/plot.h"
#include "report/recorder.h"
#include "report/tap.h"
#include "report/trenddoc.h"
#include "util/progname.h"

/* What a report is written from (report.h). */
struct perf__report_run {
  const perf__options_cli *cli;
  perf__result_set res; /* its results (tests NULL for --merge's pages) */
  time_t started;
  int code;
  perf__recorder_run recorded; /* --history: the run's id there */
  const perf__json *doc; /* the perfgate-report/1 document, composed once for --json and
                            --history, so that both hold the same bytes (NULL: neither) */
};
typedef perf__report_run run;

/* ---- the writers: write_<field>, one per row of PERF__OPTIONS_REPORTS ---- */

/* --junit. Never fails (stream errors show in ferror(f)). */
static int write_junit(FILE *f, const run *x)
{
  perf__junit_write(f, &x->res, x->started, x->cli->device_label);
  return 0;
}

/* --markdown, with the last runs compared when the run was recorded. Never
 * fails (stream errors show in ferror(f)). */
static int write_markdown(FILE *f, const run *x)
{
  perf__lastruns h = {x->cli->history, x->recorded.run, x->recorded.gpu, 10};
  perf__markdown_write(f, &x->res, x->recorded.run ? &h : NULL);
  perf__hwmove_markdown(f); /* --update-baselines beside another GPU's file */
  return 0;
}

/* --json: the run's document, composed once in memory (x->doc), copied
 * onto f. Fails (1) when it ran out of memory. */
static int write_json(FILE *f, const run *x)
{
  if (!x->doc || x->doc->oom) return 1;
  if (x->doc->len) fwrite(x->doc->s, 1, x->doc->len, f);
  return 0;
}

/* --html. Never fails (stream errors show in ferror(f)). */
static int write_html(FILE *f, const run *x)
{
  perf__html_write(f, x->res.r, x->res.n, x->started, x->code, x->cli->argc, x->cli->argv);
  return 0;
}

/* --tap. Never fails (stream errors show in ferror(f)). */
static int write_tap(FILE *f, const run *x)
{
  perf__tap_write(f, &x->res);
  return 0;
}

/* ---- the commit and trend reports' writers, for rows whose column is 1 ---- */

/* --markdown with --commit-report. Never fails (stream errors in ferror(f)). */
static int commit_markdown(FILE *f, const void *doc) { return perf__commitdoc_markdown(f, doc); }

/* --html with --commit-report. Never fails (stream errors in ferror(f)). */
static int commit_html(FILE *f, const void *doc) { return perf__commitdoc_html(f, doc); }

/* --html with --trend. Never fails (stream errors in ferror(f)). */
static int trend_html(FILE *f, const void *doc) { return perf__trenddoc_html(f, doc); }

/* A row's commit and trend writers: commit_<field> and trend_<field> where
 * its column is 1; a row that says 1 without its writer does not build. */
#define PERF__REPORT_COMMIT_1(field) commit_##field
#define PERF__REPORT_COMMIT_0(field) NULL
#define PERF__REPORT_TREND_1(field) trend_##field
#define PERF__REPORT_TREND_0(field) NULL

/* ---- the table ---------------------------------------------------------- */

/* A row's field has its dest's type (a path for a file, a flag for stdout),
 * and the one stdout is not split by GPU. */
#define PERF__X(opt, field, dest, gpus, trend, commit)                                            \
  _Static_assert(_Generic(((perf__options_cli *)0)->field,                               \
                          const char *: PERF__OPTIONS_##dest == PERF__OPTIONS_FILE,       \
                          int: PERF__OPTIONS_##dest == PERF__OPTIONS_STDOUT,              \
                          default: 0),                                                    \
                 opt ": a file's option sets a const char *, stdout's an int");           \
  _Static_assert(PERF__OPTIONS_##dest == PERF__OPTIONS_FILE ||                            \
                     PERF__OPTIONS_##gpus == PERF__OPTIONS_ONE,                           \
                 opt ": a format on stdout is one stream (gpus ONE)");
PERF__OPTIONS_REPORTS(PERF__X)
#undef PERF__X

/* Each row of PERF__OPTIONS_REPORTS with its write_<field>, then the end. */
static const perf__report_format formats[PERF__REPORT_NFORMATS + 1] = {
#define PERF__X(opt, field, dest, gpus, trend, commit)                                                \
  {opt, offsetof(perf__options_cli, field), PERF__OPTIONS_##dest, PERF__OPTIONS_##gpus,       \
   write_##field, PERF__REPORT_COMMIT_##commit(field), PERF__REPORT_TREND_##trend(field)},
    PERF__OPTIONS_REPORTS(PERF__X)
#undef PERF__X
    {NULL, 0, PERF__OPTIONS_FILE, PERF__OPTIONS_ONE, NULL, NULL, NULL}};

/* See report.h. */
const perf__report_format *perf__report_formats(void)
{
  return formats;
}

/* See report.h. */
const char *perf__report_path(const perf__options_cli *cli, const perf__report_format *f)
{
  if (f->dest != PERF__OPTIONS_FILE) return NULL;
  return *(const char *const *)(const void *)((const char *)cli + f->field);
}

/* See report.h. */
void perf__report_set_path(perf__options_cli *cli, const perf__report_format *f, const char *path)
{
  if (f->dest == PERF__OPTIONS_FILE) *(const char **)(void *)((char *)cli + f->field) = path;
}

/* 1 when cli asks for format f, one that goes to stdout (its flag is on).
 * Never fails. */
static int on_stdout(const perf__options_cli *cli, const perf__report_format *f)
{
  if (f->dest != PERF__OPTIONS_STDOUT) return 0;
  return *(const int *)(const void *)((const char *)cli + f->field) != 0;
}

/* See report.h. */
const perf__report_format *perf__report_on_stdout(const perf__options_cli *cli)
{
  for (const perf__report_format *f = formats; f->opt; f++)
    if (on_stdout(cli, f)) return f;
  return NULL;
}

/* ---- the check before the run ------------------------------------------ */

/* Whether format f's file path (given) can be written, into err[len]. Returns
 * 0 or PERF__EUSAGE. */
static int check_file(const perf__options_cli *cli, const perf__report_format *f,
                      const char *path, char *err, size_t len)
{
  char why[4400];
  int in_place = 0;
  if (!*path) return snprintf(err, len, "%s needs a file name", f->opt), PERF__EUSAGE;
  if (perf__file_check(path, &in_place, why, sizeof why))
    return snprintf(err, len, "%s=%s: %s", f->opt, path, why), PERF__EUSAGE;
  /* --devices writes one file per GPU next to the path given */
  if (in_place && cli->devices && f->gpus != PERF__OPTIONS_MERGED)
    return snprintf(err, len, "%s=%s: with --devices each GPU gets its own file (name.gpuK), "
                    "which a device, FIFO or stream path cannot give: name a regular file",
                    f->opt, path), PERF__EUSAGE;
  return 0;
}

/* See report.h. */
int perf__report_check(const perf__options_cli *cli, char *err, size_t len)
{
  if (cli->plots && perf__plot_mkdir(cli->plots, err, len)) return PERF__EUSAGE;
  for (const perf__report_format *f = formats; f->opt; f++) {
    const char *path = perf__report_path(cli, f);
    if (path && check_file(cli, f, path, err, len)) return PERF__EUSAGE;
  }
  return 0;
}

/* ---- writing ------------------------------------------------------------ */

/* See report.h. */
int perf__report_save(const char *opt, const char *path, const perf__json *text)
{
  char why[200];
  int e = text->oom ? (snprintf(why, sizeof why, "%s", strerror(ENOMEM)), PERF__ENOMEM)
                    : perf__file_replace(path, text->s, text->len, 0, NULL, why, sizeof why);
  if (e) fprintf(stderr, "%s: cannot write %s=%s: %s\n", perf__progname(), opt, path, why);
  return e ? PERF__EIO : 0;
}

/* See report.h. */
int perf__report_write_doc(const char *opt, const char *path, perf__report_doc_fn *w,
                           const void *doc)
{
  perf__json text = {0};
  FILE *f = open_memstream(&text.s, &text.len);
  int oom = f ? w(f, doc) : 1;
  text.oom = oom || !f || ferror(f);
  if (f && fclose(f)) text.oom = 1;
  int e = perf__report_save(opt, path, &text);
  free(text.s);
  return e;
}

/* A run's writer and the run, as one document. */
typedef struct run_doc {
  int (*w)(FILE *, const perf__report_run *);
  const run *x;
} run_doc;

/* Writes a run_doc's run with its writer. Returns what the writer does. */
static int write_run(FILE *f, const void *doc)
{
  const run_doc *d = doc;
  return d->w(f, d->x);
}

/* Writes path (option opt's) with writer w, composed in memory first.
 * Returns 0 or PERF__EIO with a message. */
static int write_file(const char *opt, const char *path,
                      int (*w)(FILE *, const perf__report_run *), const run *x)
{
  run_doc d = {w, x};
  return perf__report_write_doc(opt, path, write_run, &d);
}

/* Format f onto out (the run's stdout), flushed. Returns 0, or PERF__EIO
 * with a message that names the stream by its option ("the TAP stream"
 * for --tap). */
static int write_out(const perf__report_format *f, FILE *out, const run *x)
{
  char name[64];
  size_t k = 0;
  for (const char *c = f->opt + strspn(f->opt, "-"); *c && k + 1 < sizeof name; c++)
    name[k++] = (char)toupper((unsigned char)*c);
  name[k] = '\0';
  int oom = f->write(out, x);
  if (!fflush(out) && !oom) return 0;
  fprintf(stderr, "%s: cannot write the %s stream: %s\n", perf__progname(), name,
          strerror(oom ? ENOMEM : errno));
  return PERF__EIO;
}

/* Format f where x's command line asks for it: its file, or the run's
 * stdout (cli->report_out; nothing when that is NULL). Returns 0, or
 * PERF__EIO with a message. */
static int write_format(const perf__report_format *f, const run *x)
{
  const char *path = perf__report_path(x->cli, f);
  if (path) return write_file(f->opt, path, f->write, x);
  if (x->cli->report_out && on_stdout(x->cli, f))
    return write_out(f, x->cli->report_out, x);
  return 0;
}

/* --history: the run recorded from its --json document (x->doc, kept
 * whole in the history). Returns 0 or PERF__EIO with a message. */
static int record(run *x)
{
  char err[600];
  int oom = !x->doc || x->doc->oom;
  perf__jsontree_node *doc = oom ? NULL : perf__jsontree_parse(x->doc->s, "the run's report", err, sizeof err);
  if (!doc) {
    fprintf(stderr, "%s: --history: %s: the run was not recorded\n", perf__progname(),
            oom ? "out of memory" : err);
    return PERF__EIO;
  }
  int e = perf__recorder_record(x->cli, doc, x->doc->s, "run", &x->recorded);
  perf__jsontree_free(doc);
  return e;
}

/* See report.h. */
int perf__report_pages(const perf__options_cli *cli, const perf__result *r, size_t n,
                       time_t started, int code)
{
  run x = {.cli = cli, .res = {.r = r, .n = n}, .started = started, .code = code};
  int err = 0;
  if (cli->plots && perf__plot_dir(cli->plots, r, n)) err = PERF__EIO;
  if (cli->html && write_file("--html", cli->html, write_html, &x)) err = PERF__EIO;
  return err;
}

/* See report.h. */
int perf__report_write(const perf__options_cli *cli, const perf__registry_test **tests, size_t ntests,
                       const perf__result *results, size_t nresults, time_t started, int code)
{
  run x = {.cli = cli, .res = {tests, ntests, results, nresults}, .started = started, .code = code};
  perf__json doc = {0};
  if (cli->json || cli->history) {
    perf__jsonreport_write(&doc, cli, &x.res, started, code);
    x.doc = &doc;
  }
  int err = 0;
  if (cli->history && record(&x)) err = PERF__EIO;
  if (cli->plots && perf__plot_dir(cli->plots, results, nresults)) err = PERF__EIO;
  for (const perf__report_format *f = formats; f->opt; f++)
    if (write_format(f, &x)) err = PERF__EIO;
  perf__json_free(&doc);
  return err;
}
