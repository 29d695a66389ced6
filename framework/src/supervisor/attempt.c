/* attempt.c — confirm before failing, the supervisor's side: second attempts and their result. */
/* Which tests get a second attempt, what it takes from the first, and both
 * attempts as one result. */
#define _POSIX_C_SOURCE 200809L
#include "supervisor/attempt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/confirm.h"
#include "util/units.h"

/* See attempt.h. */
int perf__attempt_needed(const perf__result *r)
{
  if (r->outcome != PERF_OUTCOME_FAIL) return 0;
  for (size_t i = 0; i < r->nclaims; i++)
    if (r->claims[i].id && r->claims[i].outcome != PERF_OUTCOME_PASS) return 1;
  return 0;
}

/* 1 when cause says a co-tenant that stayed left the claim undecided
 * (PERF__CONFIRM_STOPPED_SHARED or PERF__CONFIRM_STILL_SHARED); 0 for
 * NULL. Never fails. */
static int stayed(const char *cause)
{
  return cause && (strstr(cause, PERF__CONFIRM_STOPPED_SHARED) ||
                   strstr(cause, PERF__CONFIRM_STILL_SHARED));
}

/* 1 when CROSSOVER claim c has undecided points, each measured beside a
 * co-tenant that stayed (its undecided points are then why it is open).
 * Never fails. */
static int points_stayed(const perf__claimrec *c)
{
  size_t k = 0;
  for (size_t i = 0; i < c->npoints; i++) {
    const perf__claimrec_point *p = &c->points[i];
    if (!p->side || strcmp(p->side, perf__claimrec_side_word(0))) continue; /* 0: undecided */
    if (!p->measured || !stayed(p->m.noise.cause)) return 0;
    k++;
  }
  return k > 0;
}

/* See attempt.h. */
int perf__attempt_shared_out(perf__result *r)
{
  size_t n = 0;
  for (size_t i = 0; i < r->nclaims; i++) {
    const perf__claimrec *c = &r->claims[i];
    if (!c->id || c->outcome == PERF_OUTCOME_PASS) continue;
    if (c->outcome != PERF_OUTCOME_INCONCLUSIVE) return 0;
    if (perf__claimrec_is_ratio(c->kind)          ? !stayed(c->ratio.noise.cause)
        : c->kind == PERF__CLAIMREC_CROSSOVER ? !points_stayed(c)
                                              : !stayed(c->message)) /* a BASELINE says it in its message */
      return 0;
    n++;
  }
  if (!n) return 0;
  char said[300], all[64] = "the undecided claim";
  if (n > 1) snprintf(all, sizeof all, "all %zu undecided claims", n);
  snprintf(said, sizeof said, "%snot run again: another process shared the GPU through %s; a "
           "second attempt beside it would say the same", PERF__RESULT_CONFIRMED, all);
  char *line = strdup(said);
  if (line) perf__result_add_line(r, 0, line);
  return 1;
}

/* 1 when every record of r with id passed. Never fails. */
static int all_passed(const perf__result *r, const char *id)
{
  for (size_t i = 0; i < r->nclaims; i++)
    if (r->claims[i].id && !strcmp(r->claims[i].id, id) && r->claims[i].outcome != PERF_OUTCOME_PASS)
      return 0;
  return 1;
}

/* See attempt.h. NULL without memory. */
char *perf__attempt_keep_text(const perf__result *first, size_t *len)
{
  const char **ids = malloc((first->nclaims + 1) * sizeof *ids);
  size_t n = 0;
  if (!ids) return NULL;
  for (size_t i = 0; i < first->nclaims; i++) {
    const char *id = first->claims[i].id;
    int seen = 0;
    for (size_t k = 0; id && k < n; k++) seen |= !strcmp(ids[k], id);
    if (id && !seen && all_passed(first, id)) ids[n++] = id;
  }
  char *text = perf__confirm_keep_text(ids, n, len);
  free(ids);
  return text;
}

/* Moves c into the array *a of *n (c emptied). Never fails: without
 * memory c is freed. */
static void push(perf__claimrec **a, size_t *n, perf__claimrec *c)
{
  perf__claimrec *grown = realloc(*a, (*n + 1) * sizeof *grown);
  if (!grown) {
    perf__claimrec_free(c);
    return;
  }
  *a = grown;
  (*a)[(*n)++] = *c;
  *c = (perf__claimrec){0};
}

/* The final claims: second's, each kept place-holder replaced by first's
 * records with its id; what is left of first's goes to rest. Returns how
 * many claims were taken from the first attempt. Never fails. */
static size_t final_claims(perf__result *second, perf__result *first, perf__claimrec **rest,
                           size_t *nrest)
{
  perf__claimrec *out = NULL;
  size_t n = 0, kept = 0;
  for (size_t i = 0; i < second->nclaims; i++) {
    perf__claimrec *c = &second->claims[i];
    if (!c->kept || !c->id) {
      c->attempt = 2;
      push(&out, &n, c);
      continue;
    }
    kept++;
    for (size_t k = 0; k < first->nclaims; k++)
      if (first->claims[k].id && !strcmp(first->claims[k].id, c->id)) {
        first->claims[k].attempt = 1;
        push(&out, &n, &first->claims[k]);
      }
    perf__claimrec_free(c);
  }
  for (size_t k = 0; k < first->nclaims; k++)
    if (first->claims[k].message) {
      first->claims[k].attempt = 1;
      push(rest, nrest, &first->claims[k]);
    }
  free(second->claims);
  second->claims = out;
  second->nclaims = n;
  return kept;
}

/* The verdict line of claim c among first's lines ("HEAD: WORD..." where
 * c's message is "HEAD: WORD..."), else its message. Never fails. */
static const char *verdict_line(const perf__result *first, const perf__claimrec *c)
{
  const char *word = perf__status_word(c->outcome), *m = c->message ? c->message : "";
  char needle[64];
  snprintf(needle, sizeof needle, ": %s", word);
  const char *at = strstr(m, needle);
  size_t head = at ? (size_t)(at - m) : strlen(m);
  for (size_t i = 0; i < first->nlines; i++)
    if (!first->verbose_only[i] && !strncmp(first->lines[i], m, head) &&
        !strncmp(first->lines[i] + head, needle, strlen(needle)))
      return first->lines[i];
  return m;
}

/* Adds "prefix text" to lines. Never fails (without memory the line is
 * lost). */
static void add_line(char ***lines, int **verbose, size_t *n, const char *prefix,
                     const char *text)
{
  size_t len = strlen(prefix) + strlen(text) + 1;
  char *s = malloc(len), **l = realloc(*lines, (*n + 1) * sizeof *l);
  if (l) *lines = l;
  int *v = realloc(*verbose, (*n + 1) * sizeof *v);
  if (v) *verbose = v;
  if (!s || !l || !v) {
    free(s);
    return;
  }
  snprintf(s, len, "%s%s", prefix, text);
  (*lines)[*n] = s;
  (*verbose)[(*n)++] = 0;
}

/* second's lines after the first attempt's verdict lines (of the claims in
 * rest that did not pass) and the line that says what the second attempt
 * did. Never fails. */
static void both_lines(perf__result *second, const perf__result *first,
                       const perf__result_attempt *a, size_t kept)
{
  char **lines = NULL, said[300];
  int *verbose = NULL;
  size_t n = 0, again = 0;
  for (size_t k = 0; k < a->nclaims; k++)
    if (a->claims[k].outcome != PERF_OUTCOME_PASS)
      add_line(&lines, &verbose, &n, PERF__RESULT_FIRST, verdict_line(first, &a->claims[k]));
  for (size_t i = 0; i < second->nclaims; i++) again += second->claims[i].attempt == 2;
  snprintf(said, sizeof said, "%s in a fresh worker (second attempt, final): %zu %s judged "
           "in it, %zu taken from the first attempt",
           perf__status_word(second->outcome), again,
           perf__units_noun((long long)again, "claim", "claims"), kept);
  add_line(&lines, &verbose, &n, PERF__RESULT_CONFIRMED, said);
  for (size_t i = 0; i < second->nlines; i++) {
    char **l = realloc(lines, (n + 1) * sizeof *l);
    int *v = realloc(verbose, (n + 1) * sizeof *v);
    if (l) lines = l;
    if (v) verbose = v;
    if (!l || !v) {
      free(second->lines[i]);
      continue;
    }
    lines[n] = second->lines[i];
    verbose[n++] = second->verbose_only[i];
  }
  free(second->lines);
  free(second->verbose_only);
  second->lines = lines;
  second->verbose_only = verbose;
  second->nlines = n;
}

/* See attempt.h. */
void perf__attempt_combine(perf__result *second, perf__result *first)
{
  perf__result_attempt *a = calloc(1, sizeof *a);
  perf__claimrec *rest = NULL;
  size_t nrest = 0, kept = final_claims(second, first, &rest, &nrest);
  second->outcome = perf__confirm_final(first->outcome, second->outcome);
  if (a) {
    *a = (perf__result_attempt){.outcome = first->outcome, .seconds = first->seconds,
                                .worker_pid = first->worker_pid, .claims = rest,
                                .nclaims = nrest};
    snprintf(a->reason, sizeof a->reason, "%s", first->reason);
    both_lines(second, first, a, kept);
  } else {
    for (size_t k = 0; k < nrest; k++) perf__claimrec_free(&rest[k]);
    free(rest);
  }
  second->seconds += first->seconds;
  perf__result_free(first);
  second->first = a;
}
