/* context.c — the worker's running test: options, lines, claim tally, end-of-test jump, hooks. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "worker/context.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/confirm.h"
#include "record/verdictline.h"

perf__context_opts perf__context_opt = {.budget_s = 2.0, .verbose = 0, .seed = 1};

enum { MAX_HOOKS = 16 };

typedef struct deferred {
  void (*fn)(void *);
  void *arg;
  const char *file; /* where it was registered */
  int line;
  struct deferred *next;
} deferred;

static struct {
  int running;
  unsigned long generation;
  char name[256];
  jmp_buf exit;
  perf__context_result *res;
  deferred *cleanups; /* last registered first */
  size_t ncleanups;
  char site[600];     /* the open claim's id, "" when none */
  char **sites;       /* each site and point opened in this test, once */
  int *opened;        /* how often each was */
  size_t nsites;
  char *keep;         /* ids taken from the first attempt, '\n' after each */
} cur;

static perf__context_check_hook *checks[MAX_HOOKS];
static perf__context_release_hook *releases[MAX_HOOKS];
static perf__context_end_hook *ends[MAX_HOOKS];
static size_t nchecks, nreleases, nends;

/* The default sink: detail and notice lines (all with --verbose) on
 * stdout, with the verdict lines rendered from claim records; data lines
 * nowhere. Never fails. */
static void print_line(perf_line_kind kind, const char *line)
{
  char verdict[4096]; /* a claim's verdict line, rendered from its record */
  if (kind == PERF_LINE_CLAIM && perf__verdictline_of_text(line, verdict, sizeof verdict))
    printf("%s\n", verdict);
  if (kind == PERF_LINE_RECORD || kind == PERF_LINE_CLAIM) return;
  if (kind == PERF_LINE_DETAIL || kind == PERF_LINE_NOTICE || perf__context_opt.verbose)
    printf("%s\n", line);
}

static perf__context_sink *sink = print_line;

/* Never fails. */
void perf__context_set_sink(perf__context_sink *s) { sink = s ? s : print_line; }

/* See context.h. */
void perf__context_line(perf_line_kind kind, const char *fmt, ...)
{
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  sink(kind, buf);
}

/* Never fails. */
void perf__context_line_raw(perf_line_kind kind, const char *text) { sink(kind, text); }

/* Forgets the claims a test opened. Never fails. */
static void forget_sites(void)
{
  for (size_t i = 0; i < cur.nsites; i++) free(cur.sites[i]);
  free(cur.sites);
  free(cur.opened);
  cur.sites = NULL;
  cur.opened = NULL;
  cur.nsites = 0;
  cur.site[0] = '\0';
}

/* Never fails. */
jmp_buf *perf__context_begin(const char *name, perf__context_result *res)
{
  *res = (perf__context_result){.outcome = PERF_OUTCOME_PASS};
  cur.res = res;
  cur.running = 1;
  cur.generation++;
  cur.cleanups = NULL;
  cur.ncleanups = 0;
  forget_sites();
  snprintf(cur.name, sizeof cur.name, "%s", name);
  return &cur.exit;
}

/* Never fails; the test has left the body (ending it now is a bug that
 * aborts). */
void perf__context_finish_checks(void)
{
  cur.running = 0;
  for (size_t i = 0; i < nchecks; i++) checks[i](cur.res);
}

/* Says which cleanup a failure came from: "in the cleanup registered at
 * f.c:9: " before the reason. Never fails (truncates). */
static void blame_cleanup(const deferred *d)
{
  char *reason = cur.res->reason, prefix[200];
  size_t cap = sizeof cur.res->reason - 1;
  snprintf(prefix, sizeof prefix, "in the cleanup registered at %.150s:%d: ", d->file, d->line);
  size_t plen = strlen(prefix), rlen = strlen(reason);
  if (rlen > cap - plen) rlen = cap - plen;
  memmove(reason + plen, reason, rlen);
  memcpy(reason, prefix, plen);
  reason[plen + rlen] = '\0';
}

/* One cleanup, as if inside the test. A failed check in it (an EXPECT, a
 * failed PERF_CUDA) fails a test that had passed or was skipped; a skip
 * from it makes a passing test an ERROR; either way the reason names the
 * cleanup. An earlier failure, error or skip stays the test's (a test
 * skipped for want of a device stays skipped). Never fails. */
static void run_cleanup(deferred *d)
{
  perf__context_result saved = *cur.res;
  volatile int ended = 0;
  cur.running = 1;
  if (setjmp(cur.exit) == 0)
    d->fn(d->arg);
  else
    ended = 1;
  cur.running = 0;
  if (!ended && cur.res->failures == saved.failures) return;
  int skipped = ended && cur.res->outcome == PERF_OUTCOME_SKIP;
  if (saved.outcome == PERF_OUTCOME_FAIL || saved.outcome == PERF_OUTCOME_ERROR ||
      (skipped && saved.outcome == PERF_OUTCOME_SKIP)) {
    *cur.res = saved;
    return;
  }
  if (skipped) cur.res->outcome = PERF_OUTCOME_ERROR;
  else if (!ended) cur.res->outcome = PERF_OUTCOME_FAIL;
  cur.res->nodevice = 0;
  blame_cleanup(d);
}

/* Never fails. */
void perf__context_finish(void)
{
  while (cur.cleanups) {
    deferred *d = cur.cleanups;
    cur.cleanups = d->next;
    cur.ncleanups--;
    run_cleanup(d);
    free(d);
  }
  for (size_t i = 0; i < nreleases; i++) releases[i]();
}

int perf__context_running(void) { return cur.running; }
const char *perf__context_name(void) { return cur.running ? cur.name : ""; }
unsigned long perf__context_generation(void) { return cur.generation; }
void perf__context_new_generation(void) { cur.generation++; }

/* Never fails; keeps the worse state. */
void perf__context_baseline_state(int state)
{
  if (cur.running && state > cur.res->baseline_missing) cur.res->baseline_missing = state;
}

/* Never fails. Outside a test the claim is dropped. */
void perf__context_claim(const perf__claimrec *r)
{
  if (!cur.running) return;
  perf__claimrec stamped = *r; /* the open claim's id, unless it has one */
  if (!stamped.id && cur.site[0]) stamped.id = cur.site;
  char *text = perf__claimrec_text(&stamped);
  if (text) perf__context_line_raw(PERF_LINE_CLAIM, text);
  free(text);
  cur.res->checks++;
  if (r->outcome == PERF_OUTCOME_PASS) return;
  if (cur.res->failures++ == 0)
    snprintf(cur.res->reason, sizeof cur.res->reason, "%.*s", (int)sizeof cur.res->reason - 1,
             r->message ? r->message : "");
}

/* See context.h. */
void perf__context_settle(void)
{
  perf__context_result *res = cur.res;
  if (!cur.running) return;
  if (res->failures > 0)
    res->outcome = PERF_OUTCOME_FAIL;
  else if (res->checks == 0 && res->skipped_checks > 0)
    res->outcome = PERF_OUTCOME_SKIP; /* the reason is the first skipped check */
  else if (res->checks == 0) {
    res->outcome = PERF_OUTCOME_ERROR;
    snprintf(res->reason, sizeof res->reason,
             "the test checked nothing: no PERF_EXPECT_* or PERF_ASSERT_* ran");
  } else
    res->outcome = PERF_OUTCOME_PASS;
}

/* Never fails (without memory: no list, every claim judged). */
void perf__context_keep(const char *list)
{
  free(cur.keep);
  cur.keep = list ? strdup(list) : NULL;
}

/* Never fails. */
double perf__context_alpha_share(void)
{
  return perf__context_opt.confirm ? PERF__CONFIRM_ALPHA_SHARE : 1.0;
}

/* How often site was opened before in this test (counted now). Never
 * fails: without memory it counts as the first time. */
static int opened_before(const char *site)
{
  for (size_t i = 0; i < cur.nsites; i++)
    if (!strcmp(cur.sites[i], site)) return cur.opened[i]++;
  char **s = realloc(cur.sites, (cur.nsites + 1) * sizeof *s);
  if (s) cur.sites = s;
  int *o = realloc(cur.opened, (cur.nsites + 1) * sizeof *o);
  if (o) cur.opened = o;
  char *copy = s && o ? strdup(site) : NULL;
  if (copy) {
    cur.sites[cur.nsites] = copy;
    cur.opened[cur.nsites++] = 1;
  }
  return 0;
}

/* Never fails. */
int perf__context_claim_open(const char *file, int line, const char *point, int once)
{
  int n = snprintf(cur.site, sizeof cur.site, "%s:%d%s", file, line, point);
  int before = once ? 0 : opened_before(cur.site);
  if (before && n > 0 && (size_t)n < sizeof cur.site)
    snprintf(cur.site + n, sizeof cur.site - (size_t)n, "#%d", before + 1);
  return cur.keep && perf__confirm_listed(cur.keep, cur.site);
}

/* Never fails. */
int perf__context_claim_kept(const char *head)
{
  char msg[1024];
  snprintf(msg, sizeof msg, "%s: PASS (in the first attempt; not judged again)", head);
  perf__context_line(PERF_LINE_VERBOSE, "%s", msg);
  perf__context_claim(&(perf__claimrec){.message = msg, .outcome = PERF_OUTCOME_PASS, .kept = 1});
  perf__context_claim_close();
  return 1;
}

/* Never fails. */
void perf__context_claim_close(void) { cur.site[0] = '\0'; }

/* Never fails; outside a test it does nothing. */
void perf__context_skipped_check(const char *fmt, ...)
{
  if (!cur.running) return;
  if (cur.res->skipped_checks++ == 0 && cur.res->failures == 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cur.res->reason, sizeof cur.res->reason, fmt, ap);
    va_end(ap);
  }
}

/* Aborts outside a test (API misuse); otherwise does not return. */
void perf__context_end(perf_outcome o, int nodevice, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  if (!cur.running) {
    fprintf(stderr, "perfgate: called outside a running test: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    abort();
  }
  if (cur.res->failures > 0 && (o == PERF_OUTCOME_SKIP || o == PERF_OUTCOME_FAIL)) {
    /* The first failed check stays the reason; a skip after a failure does
     * not hide it. */
    o = PERF_OUTCOME_FAIL;
  } else
    vsnprintf(cur.res->reason, sizeof cur.res->reason, fmt, ap);
  va_end(ap);
  cur.res->outcome = o;
  cur.res->nodevice = nodevice;
  for (size_t i = 0; i < nends; i++) ends[i]();
  longjmp(cur.exit, 1);
}

/* A framework bug, not the user's: more hooks than the lists hold. */
static void too_many_hooks(void)
{
  fprintf(stderr, "perfgate: more than %d end-of-test hooks of one kind\n", MAX_HOOKS);
  abort();
}

/* Aborts only beyond MAX_HOOKS. */
void perf__context_on_check(perf__context_check_hook *hook)
{
  for (size_t i = 0; i < nchecks; i++)
    if (checks[i] == hook) return;
  if (nchecks == MAX_HOOKS) too_many_hooks();
  checks[nchecks++] = hook;
}

/* Aborts only beyond MAX_HOOKS. */
void perf__context_on_release(perf__context_release_hook *hook)
{
  for (size_t i = 0; i < nreleases; i++)
    if (releases[i] == hook) return;
  if (nreleases == MAX_HOOKS) too_many_hooks();
  releases[nreleases++] = hook;
}

/* Aborts only beyond MAX_HOOKS. */
void perf__context_on_end(perf__context_end_hook *hook)
{
  for (size_t i = 0; i < nends; i++)
    if (ends[i] == hook) return;
  if (nends == MAX_HOOKS) too_many_hooks();
  ends[nends++] = hook;
}
/* Out of memory: runs fn at once and ends the test as FAIL. */
void perf__context_defer(void (*fn)(void *), void *arg, const char *file, int line)
{
  deferred *d = malloc(sizeof *d);
  if (!d) {
    fn(arg);
    perf__context_end(PERF_OUTCOME_FAIL, 0, "out of memory registering a cleanup");
  }
  *d = (deferred){fn, arg, file, line, cur.cleanups};
  cur.cleanups = d;
  cur.ncleanups++;
}

/* Never fails. */
size_t perf__context_cleanup_mark(void) { return cur.ncleanups; }

/* A cleanup may end the test (it is off the list first, so it never runs
 * twice). */
void perf__context_unwind(size_t mark)
{
  while (cur.cleanups && cur.ncleanups > mark) {
    deferred d = *cur.cleanups;
    free(cur.cleanups);
    cur.cleanups = d.next;
    cur.ncleanups--;
    d.fn(d.arg);
  }
}
