/* test.c — the running test's context in the worker: options, checks, outcome, early exit. */
#define _GNU_SOURCE
#include "worker/test.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/gpu.h"
#include "base/json.h"
#include "worker/nvtx.h"
#include "worker/sweep.h"
#include "worker/syncdetect.h"
#include "worker/compare.h"
#include "worker/workload.h"

perf__wopts perf__wopt = {.budget_s = 2.0, .verbose = 0, .seed = 1};

static void print_line(enum perf__line_kind kind, const char *line)
{
  if (kind == PERF__RECORD || kind == PERF__CLAIM) return;
  if (kind == PERF__DETAIL || kind == PERF__NOTICE || perf__wopt.verbose)
    printf("%s\n", line);
}

static perf__line_sink *sink = print_line;
static char *claim_data; /* members for the next claim record */
static void emit_claim(perf__outcome o, const char *msg);

static struct {
  int running;
  unsigned long serial;
  char name[256];
  jmp_buf exit;
  perf__test_result *res;
} cur;

/* Never fails. */
void perf__set_line_sink(perf__line_sink *s) { sink = s ? s : print_line; }

/* Never fails; truncates at 1 KiB. */
void perf__line(enum perf__line_kind kind, const char *fmt, ...)
{
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  sink(kind, buf);
}

/* Never fails. */
void perf__line_raw(enum perf__line_kind kind, const char *text) { sink(kind, text); }

/* Never fails. */
unsigned long perf__test_serial(void) { return cur.serial; }

/* Never fails. */
void perf__test_new_point(void) { cur.serial++; }

/* Never fails. */
const char *perf__test_name(void) { return cur.running ? cur.name : ""; }

/* Never fails; keeps the worse state. */
void perf__test_baseline_state(int state)
{
  if (cur.running && state > cur.res->baseline_missing)
    cur.res->baseline_missing = state;
}

static void set_reason(const char *fmt, va_list ap)
{
  vsnprintf(cur.res->reason, sizeof cur.res->reason, fmt, ap);
}

/* Never fails. Outside a test the claim is only printed. */
void perf__test_claim(perf__outcome o, const char *fmt, ...)
{
  if (!cur.running) return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  emit_claim(o, msg);
  cur.res->checks++;
  if (o == PERF__PASS) return;
  if (cur.res->failures++ == 0)
    snprintf(cur.res->reason, sizeof cur.res->reason, "%.*s",
             (int)sizeof cur.res->reason - 1, msg);
}

/* Never fails. */
void perf__test_claim_data(const char *members)
{
  free(claim_data);
  claim_data = strdup(members);
}

/* The claim's record for the supervisor (--json). Never fails: a record
 * that cannot be built is not sent. */
static void emit_claim(perf__outcome o, const char *msg)
{
  perf__json j = {0};
  perf__json_raw(&j, "{\"message\": ");
  perf__json_str(&j, msg);
  perf__json_raw(&j, ", \"outcome\": \"%s\"%s}", perf__status_word(o),
                 claim_data ? claim_data : "");
  if (!j.oom) perf__line_raw(PERF__CLAIM, j.s);
  perf__json_free(&j);
  free(claim_data);
  claim_data = NULL;
}

/* Never fails; outside a test it does nothing. */
void perf__test_skipped_check(const char *fmt, ...)
{
  if (!cur.running) return;
  if (cur.res->skipped_checks++ == 0 && cur.res->failures == 0) {
    va_list ap;
    va_start(ap, fmt);
    set_reason(fmt, ap);
    va_end(ap);
  }
}

/* Aborts outside a test (API misuse); otherwise does not return. */
void perf__test_end(perf__outcome o, int nodevice, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  if (!cur.running) {
    fprintf(stderr, "perfgate: called outside a running test: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    abort();
  }
  if (cur.res->failures > 0 && (o == PERF__SKIP || o == PERF__FAIL)) {
    /* The first failed check stays the reason; a skip after a failure does
     * not hide it. */
    o = PERF__FAIL;
  } else
    set_reason(fmt, ap);
  va_end(ap);
  cur.res->outcome = o;
  cur.res->nodevice = nodevice;
  longjmp(cur.exit, 1);
}

/* Outcome of a body that returned normally. */
static void settle(perf__test_result *res)
{
  if (res->failures > 0)
    res->outcome = PERF__FAIL;
  else if (res->checks == 0 && res->skipped_checks > 0)
    res->outcome = PERF__SKIP; /* the reason is the first skipped check */
  else if (res->checks == 0) {
    res->outcome = PERF__ERROR;
    snprintf(res->reason, sizeof res->reason,
             "the test checked nothing: no PERF_EXPECT_* or PERF_ASSERT_* ran");
  } else
    res->outcome = PERF__PASS;
}

/* Work a test queued can fault after its last check: wait for the device
 * and blame the fault on this test, not the next one. */
static void check_device(perf__test_result *res)
{
  char why[400];
  if (!perf__gpu_settle(why, sizeof why)) return;
  if (res->outcome == PERF__PASS || res->outcome == PERF__SKIP) {
    res->outcome = PERF__FAIL;
    snprintf(res->reason, sizeof res->reason,
             "CUDA error after the test's last check: %s", why);
  }
}

/* Never fails itself; the outcome is in *res. */
void perf__test_exec(const perf__test *t, perf__test_result *res)
{
  *res = (perf__test_result){.outcome = PERF__PASS};
  cur.res = res;
  cur.running = 1;
  cur.serial++;
  snprintf(cur.name, sizeof cur.name, "%s.%s", t->suite, t->name);
  perf__sweep_reset();
  perf__nvtx_push("%s", cur.name);
  if (setjmp(cur.exit) == 0) {
    t->body();
    settle(res);
  }
  perf__nvtx_pop(); /* also after a longjmp out of the body */
  cur.running = 0;
  if (perf__syncdetect_abandoned() && res->outcome == PERF__PASS) {
    res->outcome = PERF__ERROR;
    snprintf(res->reason, sizeof res->reason,
             "a PERF_NO_SYNC_IN region was left early (return or goto): "
             "it was never checked");
  }
  if (perf__sweep_abandoned() && res->outcome == PERF__PASS) {
    res->outcome = PERF__ERROR;
    snprintf(res->reason, sizeof res->reason,
             "a PERF_SWEEP was left early (return or goto): its remaining points "
             "and crossover claims never ran");
  }
  perf__sweep_reset();
  check_device(res);
  perf__compare_release();
  perf__workload_release_all();
  fflush(stdout);
  fflush(stderr);
}

/* Public: EXPECT/ASSERT_TRUE. Returns ok; a fatal failure ends the test. */
int perf__truth(int ok, const char *expr, const char *file, int line,
                int fatal)
{
  char msg[400], tag[96];
  snprintf(msg, sizeof msg, "TRUE(%s) at %s:%d%s %s", expr, file, line,
           perf__sweep_tag(tag, sizeof tag), ok ? "holds" : "is false");
  if (!ok) perf__line(PERF__DETAIL, "%s", msg);
  perf__test_claim(ok ? PERF__PASS : PERF__FAIL, "%s", msg);
  if (!ok && fatal) perf__test_end(PERF__FAIL, 0, "%s", msg);
  return ok;
}

/* Public: PERF_SKIP. Does not return. */
void perf__skip(const char *file, int line, const char *fmt, ...)
{
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  perf__test_end(PERF__SKIP, 0, "%s (at %s:%d)", msg, file, line);
}
