/* result.c — what the supervisor learned about one test, the input of every report. */
/* Its outcome, reason, claim records, lines and output. */
#include "report/result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OUTPUT_CAP = 64 * 1024 }; /* output kept per test */

/* PERF__ENOMEM when the line cannot be kept (it is freed). */
int perf__result_add_line(perf__result *r, int verbose_only, char *text)
{
  char **l = realloc(r->lines, (r->nlines + 1) * sizeof *l);
  if (l) r->lines = l;
  int *v = realloc(r->verbose_only, (r->nlines + 1) * sizeof *v);
  if (v) r->verbose_only = v;
  if (!l || !v) {
    free(text);
    return PERF__ENOMEM;
  }
  r->lines[r->nlines] = text;
  r->verbose_only[r->nlines++] = verbose_only;
  return 0;
}

/* Never fails: past the cap (or without memory) output is dropped and the
 * truncation is reported. */
void perf__result_add_output(perf__result *r, const char *p, size_t n)
{
  if (r->output_len + n > OUTPUT_CAP) {
    n = OUTPUT_CAP - r->output_len;
    r->output_truncated = 1;
  }
  if (n == 0) return;
  char *o = realloc(r->output, r->output_len + n + 1);
  if (!o) {
    r->output_truncated = 1;
    return;
  }
  memcpy(o + r->output_len, p, n);
  r->output = o;
  r->output_len += n;
  o[r->output_len] = '\0';
}

/* Never fails. */
void perf__result_add_claim(perf__result *r, perf__claimrec *c)
{
  perf__claimrec *grown = realloc(r->claims, (r->nclaims + 1) * sizeof *grown);
  if (!grown) {
    perf__claimrec_free(c);
    return;
  }
  r->claims = grown;
  r->claims[r->nclaims++] = *c;
  *c = (perf__claimrec){0};
}

/* Never fails. */
void perf__result_free(perf__result *r)
{
  for (size_t i = 0; i < r->nclaims; i++) perf__claimrec_free(&r->claims[i]);
  free(r->claims);
  r->claims = NULL;
  r->nclaims = 0;
  if (r->first) {
    for (size_t i = 0; i < r->first->nclaims; i++) perf__claimrec_free(&r->first->claims[i]);
    free(r->first->claims);
    free(r->first);
    r->first = NULL;
  }
  for (size_t i = 0; i < r->nlines; i++) free(r->lines[i]);
  free(r->lines);
  free(r->verbose_only);
  free(r->output);
  r->lines = NULL;
  r->verbose_only = NULL;
  r->output = NULL;
  r->nlines = r->output_len = 0;
}

/* See result.h. */
size_t perf__result_output_shown(const perf__result *r)
{
  size_t n = r->output_len;
  if (!r->output_truncated) return n;
  while (n > 0 && r->output[n - 1] != '\n') n--;
  return n ? n : r->output_len; /* one line longer than the cap: cut where it was */
}
