/* report.c — the one entry point for a run's reports: checks the files named up front, then writes each format (JSON, JUnit, Markdown, TAP, HTML, charts). */
#define _GNU_SOURCE
#include "report/report.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "base/json.h"
#include "base/status.h"
#include "report/html.h"
#include "report/jsonreport.h"
#include "report/junit.h"
#include "report/markdown.h"
#include "report/plot.h"
#include "report/recorder.h"
#include "report/tap.h"
#include "base/progname.h"

/* What a report is written from. */
typedef struct run {
  const perf__options_cli *cli;
  const perf__registry_test **tests;
  size_t ntests;
  const perf__result *r;
  size_t n;
  time_t started;
  int code;
  int argc;
  char **argv;
  perf__recorder_run recorded; /* --history: the run's id there */
} run;

/* See report.h. */
int perf__report_check(const perf__options_cli *cli, char *err, size_t len)
{
#define PERF__X(opt, field, merged) {opt, cli->field, merged},
  const struct {
    const char *opt, *path;
    int merged;
  } files[] = {PERF__REPORT_FILES(PERF__X)};
#undef PERF__X
  if (cli->plots && perf__plot_mkdir(cli->plots, err, len)) return PERF__EUSAGE;
  for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
    char why[4400];
    int in_place = 0;
    const char *opt = files[k].opt, *path = files[k].path;
    if (!path) continue;
    if (!*path) return snprintf(err, len, "%s needs a file name", opt), PERF__EUSAGE;
    if (perf__file_check(path, &in_place, why, sizeof why))
      return snprintf(err, len, "%s=%s: %s", opt, path, why), PERF__EUSAGE;
    /* --devices writes one file per GPU next to the path given */
    if (in_place && cli->devices && !files[k].merged)
      return snprintf(err, len, "%s=%s: with --devices each GPU gets its own file (name.gpuK), "
                      "which a device, FIFO or stream path cannot give: name a regular file",
                      opt, path), PERF__EUSAGE;
  }
  return 0;
}

/* See report.h. */
int perf__report_save(const char *opt, const char *path, const perf__json *text)
{
  char why[200];
  int e = text->oom ? (snprintf(why, sizeof why, "%s", strerror(ENOMEM)), PERF__ENOMEM)
                    : perf__file_replace(path, text->s, text->len, 0, NULL, why, sizeof why);
  if (e) fprintf(stderr, "%s: cannot write %s=%s: %s\n", perf__progname(), opt, path, why);
  return e ? PERF__EIO : 0;
}

/* Writes path with one of the stream writers, composed in memory first.
 * Returns 0 or PERF__EIO with a message. */
static int write_stream(const char *opt, const char *path, void (*w)(FILE *, const run *),
                        const run *x)
{
  perf__json text = {0};
  FILE *f = open_memstream(&text.s, &text.len);
  if (f) w(f, x);
  text.oom = !f || ferror(f);
  if (f && fclose(f)) text.oom = 1;
  int e = perf__report_save(opt, path, &text);
  free(text.s);
  return e;
}

/* --junit's writer. Never fails (stream errors show in ferror(f)). */
static void junit(FILE *f, const run *x)
{
  perf__junit_write(f, x->tests, x->ntests, x->r, x->n, x->started, x->cli->device_label);
}

/* --markdown's writer. Never fails (stream errors show in ferror(f)). */
static void markdown(FILE *f, const run *x)
{
  perf__lastruns h = {x->cli->history, x->recorded.run, x->recorded.gpu, 10};
  perf__markdown_write(f, x->tests, x->ntests, x->r, x->n, x->recorded.run ? &h : NULL);
}

/* --html's writer. Never fails (stream errors show in ferror(f)). */
static void html(FILE *f, const run *x)
{
  perf__html_write(f, x->r, x->n, x->started, x->code, x->argc, x->argv);
}

/* --json: the report built in memory, then written atomically. Returns 0
 * or PERF__EIO with a message. */
static int write_json(const run *x)
{
  perf__json j = {0};
  perf__jsonreport_write(&j, x->cli, x->tests, x->ntests, x->r, x->n, x->started, x->code);
  int e = perf__report_save("--json", x->cli->json, &j);
  perf__json_free(&j);
  return e;
}

/* --history: the run recorded from its --json document. Returns 0 or
 * PERF__EIO with a message. */
static int record(run *x)
{
  perf__json j = {0};
  char err[600];
  perf__jsonreport_write(&j, x->cli, x->tests, x->ntests, x->r, x->n, x->started, x->code);
  int oom = j.oom;
  perf__jsontree_node *doc = oom ? NULL : perf__jsontree_parse(j.s, "the run's report", err, sizeof err);
  perf__json_free(&j);
  if (!doc) {
    fprintf(stderr, "%s: --history: %s: the run was not recorded\n", perf__progname(),
            oom ? "out of memory" : err);
    return PERF__EIO;
  }
  int e = perf__recorder_record(x->cli, doc, "run", &x->recorded);
  perf__jsontree_free(doc);
  return e;
}

/* --tap: TAP (version 13) on out. Returns 0, or PERF__EIO with a message. */
static int write_tap(FILE *out, const run *x)
{
  perf__tap_write(out, x->tests, x->ntests, x->r, x->n);
  if (!fflush(out)) return 0;
  fprintf(stderr, "%s: cannot write the TAP stream: %s\n", perf__progname(), strerror(errno));
  return PERF__EIO;
}

/* See report.h. */
int perf__report_pages(const char *plots, const char *html_path, const perf__result *r,
                       size_t n, time_t started, int code, int argc, char **argv)
{
  run x = {.r = r, .n = n, .started = started, .code = code, .argc = argc, .argv = argv};
  int err = 0;
  if (plots && perf__plot_dir(plots, r, n)) err = PERF__EIO;
  if (html_path && write_stream("--html", html_path, html, &x)) err = PERF__EIO;
  return err;
}

/* See report.h. */
int perf__report_write(const perf__options_cli *cli, const perf__registry_test **tests, size_t ntests,
                       const perf__result *results, size_t nresults, time_t started, FILE *out,
                       int code)
{
  run x = {.cli = cli, .tests = tests, .ntests = ntests, .r = results, .n = nresults,
           .started = started, .code = code, .argc = cli->argc, .argv = cli->argv};
  int err = 0;
  if (cli->history && record(&x)) err = PERF__EIO;
  if (cli->json && write_json(&x)) err = PERF__EIO;
  if (cli->junit && write_stream("--junit", cli->junit, junit, &x)) err = PERF__EIO;
  if (cli->markdown && write_stream("--markdown", cli->markdown, markdown, &x)) err = PERF__EIO;
  if (perf__report_pages(cli->plots, cli->html, results, nresults, started, code, cli->argc,
                         cli->argv))
    err = PERF__EIO;
  if (cli->tap && out && write_tap(out, &x)) err = PERF__EIO;
  return err;
}
