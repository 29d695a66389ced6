/* test.c — one test in the worker: its body in a context, then end-of-test checks and cleanups. */
#include "worker/process/test.h"

#include <setjmp.h>
#include <stdio.h>

#include "worker/device/gpu.h"
#include "worker/device/nvtx.h"

/* Work a test queued can fault after its last check: wait for the device
 * and blame the fault on this test, not the next one. */
static void check_device(perf__context_result *res)
{
  char why[400];
  if (!perf__gpu_settle(why, sizeof why)) return;
  if (res->outcome == PERF_OUTCOME_PASS || res->outcome == PERF_OUTCOME_SKIP) {
    res->outcome = PERF_OUTCOME_FAIL;
    snprintf(res->reason, sizeof res->reason, "CUDA error after the test's last check: %s",
             why);
  }
}

/* Never fails itself; the outcome is in *res. */
void perf__test_exec(const perf__registry_test *t, perf__context_result *res)
{
  char name[256];
  snprintf(name, sizeof name, "%s.%s", t->suite, t->name);
  jmp_buf *exit = perf__context_begin(name, res);
  perf__gpu_test_begin();
  perf__nvtx_push("%s", name);
  if (setjmp(*exit) == 0) {
    t->body();
    perf__context_settle();
  }
  perf__nvtx_pop(); /* also after a longjmp out of the body */
  perf__context_finish_checks();
  check_device(res);
  perf__context_finish();
  fflush(stdout);
  fflush(stderr);
}
