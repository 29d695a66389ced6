/* worker.c — the worker process: runs the tests the supervisor names, reports over a pipe. */
#include "worker/process/worker.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/clock.h"
#include "util/units.h"
#include "record/endframe.h"
#include "record/wire.h"
#include "util/registry.h"
#include "worker/device/cotenant.h"
#include "worker/device/gpu.h"
#include "worker/claim/bldoor.h"
#include "worker/sample/workload.h"
#include "worker/sync/syncdetect.h"
#include "worker/process/test.h"

static int out_fd = -1;

/* Detail lines travel to the supervisor; a broken pipe means it is gone. */
static void send_line(perf_line_kind kind, const char *line)
{
  static const int type[PERF_LINE_KIND_COUNT] = {
#define PERF__X(sym, meaning) [PERF_LINE_##sym] = PERF__WIRE_LINE_##sym,
      PERF_LINE_KIND_MAP(PERF__X)
#undef PERF__X
  };
  fflush(stdout);
  if (perf__wire_send(out_fd, type[kind], line, strlen(line))) _Exit(2);
}

/* The host timer's floor, measured once per worker at start-up; the event
 * timer's is measured with the device, when a test first needs it. */
static void announce(void)
{
  perf__clock_floor host;
  char f[32], s[32];
  perf__clock_host_floor(&host);
  perf__context_line(PERF_LINE_INFO, "host clock (wall, submit): floor %s, step %s",
             perf__units_time(f, sizeof f, host.floor_s),
             perf__units_time(s, sizeof s, host.step_s));
}

/* Runs one named test and sends its END frame. */
static int serve(const char *name)
{
  const perf__registry_test *t = perf__registry_find(name);
  perf__context_result res;
  if (!t) {
    res = (perf__context_result){.outcome = PERF_OUTCOME_ERROR};
    snprintf(res.reason, sizeof res.reason, "worker has no test '%s'", name);
  } else
    perf__test_exec(t, &res);
  /* gpu_broken retires this worker: the CUDA runtime failed to start here
   * (what a later test calls could not be seen: gpu.h). A sync check does
   * not retire it: CUPTI is detached and finalized after each pass, as
   * after the routing pass that precedes every timed claim anyway. */
  perf__endframe e = {.outcome = (int)res.outcome, .nodevice = res.nodevice,
                      .checks = res.checks, .failures = res.failures,
                      .gpu_broken = perf__gpu_broken(),
                      .baseline_missing = res.baseline_missing};
  snprintf(e.reason, sizeof e.reason, "%s", res.reason);
  char end[800];
  size_t n = perf__endframe_format(&e, end, sizeof end);
  fflush(stdout);
  fflush(stderr);
  return perf__wire_send(out_fd, PERF__MSG_END, end, n);
}

/* See worker.h. */
int perf__worker_main(const perf__context_opts *opts, int in_fd, int out_fd_)
{
  out_fd = out_fd_;
  perf__cotenant_begin(); /* NVML's samples from before this are an earlier worker's */
  /* Processes a test starts must not hold our pipes open. */
  fcntl(in_fd, F_SETFD, FD_CLOEXEC);
  fcntl(out_fd, F_SETFD, FD_CLOEXEC);
  perf__context_opt = *opts;
  perf__context_set_sink(send_line);
  perf__workload_on_unqueued(perf__bldoor_explain);
  setvbuf(stdout, NULL, _IOLBF, 0);
  announce();
  for (;;) {
    int type;
    char *data;
    size_t len;
    int r = perf__wire_recv(in_fd, &type, &data, &len);
    if (r == 1) return 0;
    if (r) return 2;
    if (type == PERF__MSG_KEEP) { /* the next RUN is a second attempt */
      perf__context_keep(data);
      free(data);
      continue;
    }
    if (type != PERF__MSG_RUN) {
      free(data);
      return 2;
    }
    r = serve(data);
    perf__context_keep(NULL);
    free(data);
    if (r) return 2;
  }
}
