/* report.c — machine-readable reports for CI: JUnit XML, TAP 14, a Markdown summary. */
#define _GNU_SOURCE
#include "report/report.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/claimrec.h"
#include "supervisor/isolate.h"
#include "worker/fingerprint.h"
#include "report/headroom.h"
#include "report/html.h"
#include "base/json.h"
#include "report/plot.h"
#include "base/registry.h"
#include "base/status.h"
#include "report/xml.h"

static int device = -1; /* --devices child: suites are named "suite@gpuK" */

enum { MARKDOWN_CAP = 1000 * 1000 }; /* GitHub's step summary takes 1 MiB */

typedef struct counts {
  size_t tests, failures, errors, skipped;
  double seconds;
} counts;

/* FAIL and INCONCLUSIVE are failures; ERROR (not a valid test, a crash) is
 * an error, as JUnit and TAP readers mean it. */
static int is_failure(perf__outcome o) { return o == PERF__FAIL || o == PERF__INCONCLUSIVE; }

static counts count(const perf__result *r, size_t n)
{
  counts c = {0};
  for (size_t i = 0; i < n; i++) {
    c.tests++;
    c.failures += is_failure(r[i].outcome);
    c.errors += r[i].outcome == PERF__ERROR;
    c.skipped += r[i].outcome == PERF__SKIP;
    c.seconds += r[i].seconds;
  }
  return c;
}



/* A line giving a claim's failing verdict with its numbers. */
static int is_verdict_line(const char *l)
{
  return strstr(l, ": FAIL:") || strstr(l, ": INCONCLUSIVE") || strstr(l, ": ERROR:");
}


/* The verdict lines, then the test's own output: what GitLab shows. */
static void junit_system_out(FILE *f, const perf__result *r)
{
  fputs("      <system-out>", f);
  for (size_t k = 0; k < r->nlines; k++) {
    if (r->verbose_only[k]) continue;
    perf__xml_str(f, r->lines[k]);
    fputc('\n', f);
  }
  if (r->output_len) {
    fputs("--- output of the test ---\n", f);
    perf__xml_text(f, r->output, r->output_len);
  }
  fputs("</system-out>\n", f);
}

static void junit_case(FILE *f, const perf__test *t, const perf__result *r)
{
  fputs("    <testcase name=\"", f);
  perf__xml_str(f, t->name);
  fputs("\" classname=\"", f);
  perf__xml_str(f, t->suite);
  if (device >= 0) fprintf(f, "@gpu%d", device);
  fputs("\" file=\"", f);
  perf__xml_str(f, t->file);
  fprintf(f, "\" line=\"%d\" time=\"%.3f\">\n", t->line, r->seconds);
  const char *tag = r->outcome == PERF__SKIP ? "skipped"
                    : r->outcome == PERF__ERROR ? "error"
                    : is_failure(r->outcome) ? "failure" : NULL;
  if (tag) { /* the message: the first failing verdict, numbers and all */
    const char *msg = r->reason;
    for (size_t k = 0; r->outcome != PERF__SKIP && k < r->nlines; k++)
      if (!r->verbose_only[k] && is_verdict_line(r->lines[k])) {
        msg = r->lines[k];
        break;
      }
    fprintf(f, "      <%s message=\"", tag);
    perf__xml_str(f, msg);
    fprintf(f, "\" type=\"%s\">", perf__status_word(r->outcome));
    perf__xml_str(f, r->reason);
    fprintf(f, "</%s>\n", tag);
  }
  junit_system_out(f, r);
  fputs("    </testcase>\n", f);
}

/* One <testsuite> per suite, in order of first appearance. */
static void junit(FILE *f, const perf__test **tests, size_t nt, const perf__result *r,
                  size_t n, time_t started)
{
  char when[32];
  counts all = count(r, n);
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", gmtime(&started));
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"perfgate\" "
             "tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\" "
             "timestamp=\"%s\">\n",
          all.tests, all.failures, all.errors, all.skipped, all.seconds, when);
  for (size_t i = 0; i < n; i++) {
    const char *suite = tests[i % nt]->suite;
    size_t first = 0;
    while (strcmp(tests[first % nt]->suite, suite)) first++;
    if (first < i) continue; /* written with its first test */
    counts c = {0};
    for (size_t j = i; j < n; j++)
      if (!strcmp(tests[j % nt]->suite, suite)) {
        counts one = count(&r[j], 1);
        c.tests++, c.failures += one.failures, c.errors += one.errors;
        c.skipped += one.skipped, c.seconds += one.seconds;
      }
    fputs("  <testsuite name=\"", f);
    perf__xml_str(f, suite);
    if (device >= 0) fprintf(f, "@gpu%d", device);
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
               "time=\"%.3f\" timestamp=\"%s\">\n",
            c.tests, c.failures, c.errors, c.skipped, c.seconds, when);
    for (size_t j = i; j < n; j++)
      if (!strcmp(tests[j % nt]->suite, suite)) junit_case(f, tests[j % nt], &r[j]);
    fputs("  </testsuite>\n", f);
  }
  fputs("</testsuites>\n", f);
}

/* A YAML single-quoted scalar on one line. */
static void yaml_quoted(FILE *f, const char *s)
{
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'') fputs("''", f);
    else if (*s == '\n' || *s == '\r' || *s == '\t') fputc(' ', f);
    else fputc(*s, f);
  }
  fputc('\'', f);
}

/* TAP 14: a plan, then one point per test; failures carry a YAML block. */
static void tap(FILE *f, const perf__test **tests, size_t nt, const perf__result *r,
                size_t n)
{
  char name[512];
  fprintf(f, "TAP version 14\n1..%zu\n", n);
  for (size_t i = 0; i < n; i++) {
    const perf__test *t = tests[i % nt];
    perf__registry_fullname(t, name, sizeof name);
    int ok = r[i].outcome == PERF__PASS || r[i].outcome == PERF__SKIP;
    fprintf(f, "%s %zu - %s", ok ? "ok" : "not ok", i + 1, name);
    if (r[i].outcome == PERF__SKIP) {
      fputs(" # SKIP ", f);
      for (const char *p = r[i].reason; *p; p++) fputc(*p == '\n' || *p == '#' ? ' ' : *p, f);
    }
    fputc('\n', f);
    if (ok) continue;
    fputs("  ---\n  message: ", f);
    yaml_quoted(f, r[i].reason);
    fprintf(f, "\n  severity: %s\n  at:\n    file: ", r[i].outcome == PERF__ERROR ? "error" : "fail");
    yaml_quoted(f, t->file);
    fprintf(f, "\n    line: %d\n  duration_s: %.3f\n", t->line, r[i].seconds);
    if (r[i].nlines) fputs("  verdicts:\n", f);
    for (size_t k = 0; k < r[i].nlines; k++) {
      if (r[i].verbose_only[k]) continue;
      fputs("    - ", f);
      yaml_quoted(f, r[i].lines[k]);
      fputc('\n', f);
    }
    fputs("  ...\n", f);
  }
}

/* A Markdown table cell: one line, no pipes breaking the table. */
static void md_cell(FILE *f, const char *s, size_t max)
{
  for (size_t k = 0; *s && k < max; s++, k++) {
    if (*s == '|') fputs("\\|", f);
    else if (*s == '\n' || *s == '\r') fputc(' ', f);
    else fputc(*s, f);
  }
}

/* 1 when some claim ran more than once (--repeat): its headroom is news. */
static int repeated(const perf__headroom_row *rows, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (rows[i].runs > 1) return 1;
  return 0;
}

/* Failures and errors first, then the rest in run order; rows stop before
 * the file would pass MARKDOWN_CAP. */
static void markdown(FILE *f, const perf__test **tests, size_t nt, const perf__result *r,
                     size_t n)
{
  char name[512];
  counts c = count(r, n);
  size_t shown = 0;
  fprintf(f, "## perfgate: %zu passed, %zu failed, %zu skipped\n\n",
          c.tests - c.failures - c.errors - c.skipped, c.failures + c.errors, c.skipped);
  fputs("| result | test | wall | details |\n|---|---|---:|---|\n", f);
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n; i++) {
      int bad = is_failure(r[i].outcome) || r[i].outcome == PERF__ERROR;
      if (bad != (pass == 0)) continue;
      if (ftell(f) > MARKDOWN_CAP - 4096) continue;
      shown++;
      fprintf(f, "| %s | `%s` | %.2f s | ", perf__status_word(r[i].outcome),
              perf__registry_fullname(tests[i % nt], name, sizeof name), r[i].seconds);
      int shown_lines = 0;
      for (size_t k = 0; bad && k < r[i].nlines && shown_lines < 8; k++)
        if (!r[i].verbose_only[k] && is_verdict_line(r[i].lines[k])) {
          fputs(shown_lines++ ? "<br>" : "", f);
          md_cell(f, r[i].lines[k], 600);
        }
      if (!shown_lines) md_cell(f, r[i].reason, 600);
      fputs(" |\n", f);
    }
  if (shown < n) fprintf(f, "\n%zu more tests not shown: the summary stays under 1 MB.\n", n - shown);
  perf__headroom_row *rows;
  size_t nrows = perf__headroom_build(r, n, &rows);
  if (repeated(rows, nrows) && ftell(f) < MARKDOWN_CAP - 64 * 1024)
    perf__headroom_markdown(f, rows, nrows);
  free(rows);
}

static void json_kvs(perf__json *j, const perf__baseline *b)
{
  perf__json_raw(j, "{");
  for (size_t k = 0; k < b->nfp; k++) {
    perf__json_raw(j, k ? ", " : "");
    perf__json_str(j, b->fp[k].key);
    perf__json_raw(j, ": ");
    perf__json_str(j, b->fp[k].value);
  }
  perf__json_raw(j, "}");
}

/* In a child: device 0's fingerprint as "key\tvalue" lines (none without a
 * GPU). */
static void gpu_fingerprint(FILE *out, void *arg)
{
  perf__baseline b = {0};
  (void)arg;
  if (!perf__fingerprint_gpu(&b))
    for (size_t k = 0; k < b.nfp; k++) fprintf(out, "%s\t%s\n", b.fp[k].key, b.fp[k].value);
}

/* Device 0's fingerprint, measured in a child process (the supervisor never
 * touches CUDA). null without a GPU. */
static void json_gpu(perf__json *j)
{
  static char text[PERF__BL_MAX_FP * 260];
  perf__baseline b = {0};
  perf__isolate_read(gpu_fingerprint, NULL, text, sizeof text);
  for (char *line = text, *nl; *line && b.nfp < PERF__BL_MAX_FP; line = nl + 1) {
    char *tab = strchr(line, '\t');
    if (!(nl = strchr(line, '\n')) || !tab || tab > nl) break;
    *tab = *nl = '\0';
    snprintf(b.fp[b.nfp].key, sizeof b.fp[b.nfp].key, "%.47s", line);
    snprintf(b.fp[b.nfp].value, sizeof b.fp[b.nfp].value, "%.199s", tab + 1);
    b.nfp++;
  }
  if (b.nfp) json_kvs(j, &b);
  else perf__json_raw(j, "null");
}

static void json_run(perf__json *j, const perf__cli *cli, time_t started, int code,
                     const perf__result *r, size_t n)
{
  char when[32];
  counts c = count(r, n);
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&started));
  perf__json_raw(j, "\"run\": {\"started\": \"%s\", \"exit_code\": %d, \"argv\": [", when, code);
  for (int k = 0; k < cli->argc; k++) {
    perf__json_raw(j, k ? ", " : "");
    perf__json_str(j, cli->argv[k]);
  }
  perf__json_raw(j, "], \"seed\": %llu, \"budget_s\": ", (unsigned long long)cli->seed);
  perf__json_num(j, cli->budget_s);
  perf__json_raw(j, ", \"timeout_s\": ");
  perf__json_num(j, cli->timeout_s);
  perf__json_raw(j, ", \"device\": ");
  if (cli->device_label >= 0) perf__json_raw(j, "%d", cli->device_label);
  else perf__json_raw(j, "null");
  perf__json_raw(j, ", \"shard\": {\"index\": %ld, \"total\": %ld}, \"repeat\": %llu, "
                    "\"shuffle\": %s},\n",
                 cli->shard_index, cli->shard_total, (unsigned long long)cli->repeat,
                 cli->shuffle ? "true" : "false");
  perf__json_raw(j, "\"totals\": {\"tests\": %zu, \"passed\": %zu, \"failed\": %zu, "
                    "\"skipped\": %zu, \"seconds\": ",
                 c.tests, c.tests - c.failures - c.errors - c.skipped, c.failures + c.errors,
                 c.skipped);
  perf__json_num(j, c.seconds);
  perf__json_raw(j, "},\n");
}

static void json_test(perf__json *j, const perf__test *t, const perf__result *r, int device)
{
  perf__json_raw(j, "{\"name\": ");
  perf__json_str(j, r->name);
  if (device >= 0) perf__json_raw(j, ", \"device\": %d", device);
  perf__json_raw(j, ", \"suite\": ");
  perf__json_str(j, t->suite);
  perf__json_raw(j, ", \"file\": ");
  perf__json_str(j, t->file);
  perf__json_raw(j, ", \"line\": %d, \"outcome\": \"%s\", \"no_device\": %s, \"reason\": ",
                 t->line, perf__status_word(r->outcome), r->nodevice ? "true" : "false");
  perf__json_str(j, r->reason);
  perf__json_raw(j, ", \"seconds\": ");
  perf__json_num(j, r->seconds);
  perf__json_raw(j, ", \"worker_pid\": %ld", r->worker_pid);
  perf__json_raw(j, ",\n   \"claims\": [");
  for (size_t k = 0; k < r->nclaims; k++) {
    perf__json_raw(j, "%s\n    ", k ? "," : "");
    perf__claimrec_write(j, &r->claims[k]);
  }
  perf__json_raw(j, "],\n   \"lines\": [");
  for (size_t k = 0; k < r->nlines; k++) {
    perf__json_raw(j, k ? ", " : "");
    perf__json_str(j, r->lines[k]);
  }
  perf__json_raw(j, "], \"lines_verbose\": [");
  for (size_t k = 0; k < r->nlines; k++)
    perf__json_raw(j, "%s%s", k ? ", " : "", r->verbose_only[k] ? "true" : "false");
  perf__json_raw(j, "], \"output\": ");
  perf__json_strn(j, r->output ? r->output : "", r->output_len);
  perf__json_raw(j, ", \"output_truncated\": %s}", r->output_truncated ? "true" : "false");
}

/* The whole run as one JSON object (see README, "Reports"). */
static void json_report(perf__json *j, const perf__cli *cli, const perf__test **tests,
                        size_t nt, const perf__result *r, size_t n, time_t started, int code)
{
  perf__baseline host = {0};
  perf__fingerprint_host(&host);
  perf__json_raw(j, "{\"schema\": \"perfgate-report/1\",\n");
  json_run(j, cli, started, code, r, n);
  perf__json_raw(j, "\"fingerprint\": {\"host\": ");
  json_kvs(j, &host);
  perf__json_raw(j, ", \"gpu\": ");
  json_gpu(j);
  perf__json_raw(j, "},\n\"tests\": [");
  for (size_t i = 0; i < n; i++) {
    perf__json_raw(j, i ? ",\n  " : "\n  ");
    json_test(j, tests[i % nt], &r[i], cli->device_label);
  }
  perf__json_raw(j, "\n]");
  perf__headroom_row *rows;
  size_t nrows = perf__headroom_build(r, n, &rows);
  if (repeated(rows, nrows)) perf__headroom_json(j, rows, nrows);
  free(rows);
  perf__json_raw(j, "}\n");
}

/* The directory of path, for access(); dir[len]. */
static const char *dir_of(const char *path, char *dir, size_t len)
{
  snprintf(dir, len, "%s", path);
  return dirname(dir);
}

/* See export.h. */
int perf__report_check(const perf__cli *cli, char *err, size_t len)
{
  const char *files[] = {cli->junit, cli->markdown, cli->json, cli->html},
             *opts[] = {"--junit", "--markdown", "--json", "--html"};
  if (cli->plots && perf__plot_mkdir(cli->plots, err, len)) return PERF__EUSAGE;
  for (int k = 0; k < 4; k++) {
    char dir[4096];
    if (!files[k]) continue;
    if (!*files[k]) return snprintf(err, len, "%s needs a file name", opts[k]), PERF__EUSAGE;
    if (access(dir_of(files[k], dir, sizeof dir), W_OK) != 0)
      return snprintf(err, len, "%s=%s: cannot write in '%s': %s", opts[k], files[k], dir,
                      strerror(errno)),
             PERF__EUSAGE;
  }
  return 0;
}

typedef void writer(FILE *f, const perf__test **tests, size_t nt, const perf__result *r,
                    size_t n);

/* Writes path atomically with one of the writers (junit when w is NULL),
 * composed in memory first. Returns 0 or PERF__EIO with a message. */
static int write_file(const char *opt, const char *path, writer *w, const perf__test **t,
                      size_t nt, const perf__result *r, size_t n, time_t started)
{
  perf__json text = {0};
  FILE *f = open_memstream(&text.s, &text.len);
  if (f) {
    if (w) w(f, t, nt, r, n);
    else junit(f, t, nt, r, n, started);
  }
  text.oom = !f || ferror(f);
  if (f && fclose(f)) text.oom = 1;
  int e = perf__json_save(&text, path);
  free(text.s);
  if (e) fprintf(stderr, "perftest: cannot write %s=%s: %s\n", opt, path, strerror(e));
  return e ? PERF__EIO : 0;
}

/* Writes the JSON text atomically to path. Returns 0 or PERF__EIO. */
static int write_json(const char *path, const perf__json *j)
{
  int e = perf__json_save(j, path);
  if (e) fprintf(stderr, "perftest: cannot write --json=%s: %s\n", path, strerror(e));
  return e ? PERF__EIO : 0;
}

/* --html: the page composed in memory, then written atomically. Returns 0
 * or PERF__EIO with a message. */
static int write_html(const char *path, const perf__result *r, size_t n, time_t started,
                      int code, int argc, char **argv)
{
  perf__json text = {0};
  FILE *f = open_memstream(&text.s, &text.len);
  if (f) perf__html_write(f, r, n, started, code, argc, argv);
  text.oom = !f || ferror(f);
  if (f && fclose(f)) text.oom = 1;
  int e = perf__json_save(&text, path);
  free(text.s);
  if (e) fprintf(stderr, "perftest: cannot write --html=%s: %s\n", path, strerror(e));
  return e ? PERF__EIO : 0;
}

/* See export.h. */
int perf__report_pages(const char *plots, const char *html, const perf__result *r, size_t n,
                       time_t started, int code, int argc, char **argv)
{
  int err = 0;
  if (plots && perf__plot_dir(plots, r, n)) err = PERF__EIO;
  if (html && write_html(html, r, n, started, code, argc, argv)) err = PERF__EIO;
  return err;
}

/* See export.h. */
int perf__report_write(const perf__cli *cli, const perf__test **tests, size_t ntests,
                 const perf__result *results, size_t nresults, time_t started, FILE *out,
                 int code)
{
  int err = 0;
  device = cli->device_label;
  if (cli->json) {
    perf__json j = {0};
    json_report(&j, cli, tests, ntests, results, nresults, started, code);
    if (write_json(cli->json, &j)) err = PERF__EIO;
    perf__json_free(&j);
  }
  if (cli->junit && write_file("--junit", cli->junit, NULL, tests, ntests, results, nresults,
                               started))
    err = PERF__EIO;
  if (cli->markdown && write_file("--markdown", cli->markdown, markdown, tests, ntests,
                                  results, nresults, started))
    err = PERF__EIO;
  if (perf__report_pages(cli->plots, cli->html, results, nresults, started, code, cli->argc,
                         cli->argv))
    err = PERF__EIO;
  if (cli->tap && out) {
    tap(out, tests, ntests, results, nresults);
    if (fflush(out)) {
      fprintf(stderr, "perftest: cannot write the TAP stream: %s\n", strerror(errno));
      err = PERF__EIO;
    }
  }
  return err;
}
