/* export.c — machine-readable reports for CI: JUnit XML, TAP 14, a Markdown summary. */
#define _GNU_SOURCE
#include "export.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "registry.h"
#include "status.h"

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

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
  size_t len = p[0] < 0x80 ? 1 : (p[0] >> 5) == 6 ? 2 : (p[0] >> 4) == 14 ? 3
             : (p[0] >> 3) == 30 ? 4 : 0;
  if (!len || len > n) return 0;
  for (size_t k = 1; k < len; k++)
    if ((p[k] & 0xc0) != 0x80) return 0;
  return len;
}

/* Writes n bytes of s as XML character data: markup escaped, characters XML
 * forbids (control bytes, invalid UTF-8) replaced by '?'. */
static void xml_text(FILE *f, const char *s, size_t n)
{
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; i < n;) {
    size_t len = utf8_len(p + i, n - i);
    unsigned c = p[i];
    if (len == 1 && c < 0x20 && c != '\t' && c != '\n' && c != '\r') len = 0;
    if (!len) {
      fputc('?', f);
      i++;
      continue;
    }
    if (c == '&') fputs("&amp;", f);
    else if (c == '<') fputs("&lt;", f);
    else if (c == '>') fputs("&gt;", f);
    else if (c == '"') fputs("&quot;", f);
    else fwrite(p + i, 1, len, f);
    i += len;
  }
}

static void xml_str(FILE *f, const char *s) { xml_text(f, s, strlen(s)); }

/* The verdict lines, then the test's own output: what GitLab shows. */
static void junit_system_out(FILE *f, const perf__result *r)
{
  fputs("      <system-out>", f);
  for (size_t k = 0; k < r->nlines; k++) {
    if (r->verbose_only[k]) continue;
    xml_str(f, r->lines[k]);
    fputc('\n', f);
  }
  if (r->output_len) {
    fputs("--- output of the test ---\n", f);
    xml_text(f, r->output, r->output_len);
  }
  fputs("</system-out>\n", f);
}

static void junit_case(FILE *f, const perf__test *t, const perf__result *r)
{
  fputs("    <testcase name=\"", f);
  xml_str(f, t->name);
  fputs("\" classname=\"", f);
  xml_str(f, t->suite);
  fputs("\" file=\"", f);
  xml_str(f, t->file);
  fprintf(f, "\" line=\"%d\" time=\"%.3f\">\n", t->line, r->seconds);
  const char *tag = r->outcome == PERF__SKIP ? "skipped"
                    : r->outcome == PERF__ERROR ? "error"
                    : is_failure(r->outcome) ? "failure" : NULL;
  if (tag) {
    fprintf(f, "      <%s message=\"", tag);
    xml_str(f, r->reason);
    fprintf(f, "\" type=\"%s\"/>\n", perf__outcome_word(r->outcome));
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
    xml_str(f, suite);
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
    perf__test_fullname(t, name, sizeof name);
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

/* A line giving a claim's failing verdict with its numbers. */
static int is_verdict_line(const char *l)
{
  return strstr(l, ": FAIL:") || strstr(l, ": INCONCLUSIVE") || strstr(l, ": ERROR:");
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
      fprintf(f, "| %s | `%s` | %.2f s | ", perf__outcome_word(r[i].outcome),
              perf__test_fullname(tests[i % nt], name, sizeof name), r[i].seconds);
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
}

/* The directory of path, for access(); dir[len]. */
static const char *dir_of(const char *path, char *dir, size_t len)
{
  snprintf(dir, len, "%s", path);
  return dirname(dir);
}

/* See export.h. */
int perf__export_check(const perf__cli *cli, char *err, size_t len)
{
  const char *files[] = {cli->junit, cli->markdown}, *opts[] = {"--junit", "--markdown"};
  for (int k = 0; k < 2; k++) {
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

/* Writes path atomically with one of the writers (junit through a closure
 * on started). Returns 0 or PERF__EIO with a message on stderr. */
static int write_file(const char *opt, const char *path, writer *w, const perf__test **t,
                      size_t nt, const perf__result *r, size_t n, time_t started)
{
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (f) {
    if (w) w(f, t, nt, r, n);
    else junit(f, t, nt, r, n, started);
  }
  int bad = !f || ferror(f) || fflush(f) || fsync(fileno(f));
  int e = errno;
  if (f && fclose(f)) bad = 1, e = errno;
  if (!bad && rename(tmp, path)) bad = 1, e = errno;
  if (bad) {
    unlink(tmp);
    fprintf(stderr, "perftest: cannot write %s=%s: %s\n", opt, path, strerror(e));
    return PERF__EIO;
  }
  return 0;
}

/* See export.h. */
int perf__export(const perf__cli *cli, const perf__test **tests, size_t ntests,
                 const perf__result *results, size_t nresults, time_t started, FILE *out)
{
  int err = 0;
  if (cli->junit && write_file("--junit", cli->junit, NULL, tests, ntests, results, nresults,
                               started))
    err = PERF__EIO;
  if (cli->markdown && write_file("--markdown", cli->markdown, markdown, tests, ntests,
                                  results, nresults, started))
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
