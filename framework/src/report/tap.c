/* tap.c — --tap: the run as TAP 14 on a stream, a YAML block for each test that did not pass. */
#include "report/tap.h"

#include "base/registry.h"
#include "base/status.h"

/* A YAML single-quoted scalar on one line. Never fails (stream errors show
 * in ferror(f)), as every writer here. */
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

/* The YAML block of a test that did not pass: reason, where, time and its
 * verdict lines. */
static void tap_block(FILE *f, const perf__registry_test *t, const perf__result *r)
{
  fputs("  ---\n  message: ", f);
  yaml_quoted(f, r->reason);
  fprintf(f, "\n  severity: %s\n  at:\n    file: ", r->outcome == PERF__ERROR ? "error" : "fail");
  yaml_quoted(f, t->file);
  fprintf(f, "\n    line: %d\n  duration_s: %.3f\n", t->line, r->seconds);
  if (r->nlines) fputs("  verdicts:\n", f);
  for (size_t k = 0; k < r->nlines; k++) {
    if (r->verbose_only[k]) continue;
    fputs("    - ", f);
    yaml_quoted(f, r->lines[k]);
    fputc('\n', f);
  }
  fputs("  ...\n", f);
}

/* See tap.h. */
void perf__tap_write(FILE *f, const perf__registry_test **tests, size_t nt, const perf__result *r,
                     size_t n)
{
  char name[512];
  fprintf(f, "TAP version 14\n1..%zu\n", n);
  for (size_t i = 0; i < n; i++) {
    const perf__registry_test *t = tests[i % nt];
    perf__registry_fullname(t, name, sizeof name);
    int ok = r[i].outcome == PERF__PASS || r[i].outcome == PERF__SKIP;
    fprintf(f, "%s %zu - %s", ok ? "ok" : "not ok", i + 1, name);
    if (r[i].outcome == PERF__SKIP) {
      fputs(" # SKIP ", f);
      for (const char *p = r[i].reason; *p; p++) fputc(*p == '\n' || *p == '#' ? ' ' : *p, f);
    }
    fputc('\n', f);
    if (!ok) tap_block(f, t, &r[i]);
  }
}
