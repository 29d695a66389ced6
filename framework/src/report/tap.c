/* tap.c — --tap: the run as TAP version 13 (TAP 14 readers take it too) on a stream. */
/* Each test that did not pass gets a YAML block. */
#include "report/tap.h"

#include "util/registry.h"
#include "util/status.h"

/* A YAML double-quoted scalar on one line (\" and \\ escaped, line breaks
 * and tabs as spaces). Never fails (stream errors show in ferror(f)), as
 * every writer here. */
static void yaml_quoted(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f), fputc(*s, f);
    else if (*s == '\n' || *s == '\r' || *s == '\t') fputc(' ', f);
    else if ((unsigned char)*s < 0x20) fprintf(f, "\\x%02x", (unsigned char)*s);
    else fputc(*s, f);
  }
  fputc('"', f);
}

/* The YAML block of a test that did not pass: reason, where, time and its
 * verdict lines (as a literal block). */
static void tap_block(FILE *f, const perf__registry_test *t, const perf__result *r)
{
  fputs("  ---\n  message: ", f);
  yaml_quoted(f, r->reason);
  fprintf(f, "\n  severity: %s\n  at:\n    file: ", r->outcome == PERF_OUTCOME_ERROR ? "error" : "fail");
  yaml_quoted(f, t->file);
  fprintf(f, "\n    line: %d\n  duration_s: %.3f\n", t->line, r->seconds);
  /* a literal block, one verdict line per line: a list item that starts
   * "a: ..." is read as a mapping by TAP::Parser's YAMLish reader */
  int any = 0;
  for (size_t k = 0; k < r->nlines; k++) {
    if (r->verbose_only[k]) continue;
    fputs(any++ ? "    " : "  verdicts: |\n    ", f);
    for (const char *c = r->lines[k]; *c; c++) fputc(*c == '\n' || *c == '\r' ? ' ' : *c, f);
    fputc('\n', f);
  }
  fputs("  ...\n", f);
}

/* See tap.h. */
void perf__tap_write(FILE *f, const perf__result_set *s)
{
  const perf__result *r = s->r;
  size_t n = s->n;
  char name[512];
  fprintf(f, "TAP version 13\n1..%zu\n", n); /* 13: what TAP::Harness 3.44 (Debian 12) reads; a TAP 14 reader takes it too */
  for (size_t i = 0; i < n; i++) {
    const perf__registry_test *t = s->tests[i % s->nt];
    perf__registry_fullname(t, name, sizeof name);
    int ok = r[i].outcome == PERF_OUTCOME_PASS || r[i].outcome == PERF_OUTCOME_SKIP;
    fprintf(f, "%s %zu - %s", ok ? "ok" : "not ok", i + 1, name);
    if (r[i].outcome == PERF_OUTCOME_SKIP) {
      fputs(" # SKIP ", f);
      for (const char *p = r[i].reason; *p; p++) fputc(*p == '\n' || *p == '#' ? ' ' : *p, f);
    }
    fputc('\n', f);
    if (!ok) tap_block(f, t, &r[i]);
  }
}
