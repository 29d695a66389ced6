/* worker.c — the worker process: runs the tests the supervisor names, reports over a pipe. */
#include "worker/worker.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/units.h"
#include "base/wire.h"
#include "base/registry.h"
#include "worker/syncdetect.h"
#include "worker/test.h"

static int out_fd = -1;

/* Detail lines travel to the supervisor; a broken pipe means it is gone. */
static void send_line(enum perf__line_kind kind, const char *line)
{
  static const int type[] = {PERF__MSG_LINE, PERF__MSG_VLINE, PERF__MSG_INFO,
                             PERF__MSG_NOTICE, PERF__MSG_RECORD, PERF__MSG_CLAIM};
  fflush(stdout);
  if (perf__wire_send(out_fd, type[kind], line, strlen(line))) _Exit(2);
}

/* The host timer's floor, measured once per worker at start-up; the event
 * timer's is measured with the device, when a test first needs it. */
static void announce(void)
{
  perf__floor host;
  char f[32], s[32];
  perf__clock_host_floor(&host);
  perf__line(PERF__INFO, "host clock (wall, submit): floor %s, step %s",
             perf__units_time(f, sizeof f, host.floor_s),
             perf__units_time(s, sizeof s, host.step_s));
}

/* Runs one named test and sends its END frame. */
static int serve(const char *name)
{
  const perf__test *t = perf__registry_find(name);
  perf__test_result res;
  if (!t) {
    res = (perf__test_result){.outcome = PERF__ERROR};
    snprintf(res.reason, sizeof res.reason, "worker has no test '%s'", name);
  } else
    perf__test_exec(t, &res);
  char end[700];
  int n = snprintf(end, sizeof end, "%d %d %d %d %d %d\n%s", (int)res.outcome,
                   res.nodevice, res.checks, res.failures, perf__syncdetect_used(),
                   res.baseline_missing, res.reason);
  fflush(stdout);
  fflush(stderr);
  return perf__wire_send(out_fd, PERF__MSG_END, end,
                        (size_t)(n < (int)sizeof end ? n : (int)sizeof end - 1));
}

/* See worker.h. */
int perf__worker_main(const perf__cli *cli)
{
  out_fd = cli->worker_out;
  /* Processes a test starts must not hold our pipes open. */
  fcntl(cli->worker_in, F_SETFD, FD_CLOEXEC);
  fcntl(cli->worker_out, F_SETFD, FD_CLOEXEC);
  perf__wopt.budget_s = cli->budget_s;
  perf__wopt.verbose = cli->verbose;
  perf__wopt.seed = cli->seed;
  perf__wopt.allow_no_sync_check = cli->allow_no_sync_check;
  perf__wopt.baseline_dir = cli->baseline_dir;
  perf__wopt.update_baselines = cli->update_baselines;
  perf__wopt.baseline_check_all = cli->baseline_check_all;
  perf__wopt.strict_improvements = cli->strict_improvements;
  perf__set_line_sink(send_line);
  setvbuf(stdout, NULL, _IOLBF, 0);
  announce();
  for (;;) {
    int type;
    char *data;
    size_t len;
    int r = perf__wire_recv(cli->worker_in, &type, &data, &len);
    if (r == 1) return 0;
    if (r) return 2;
    if (type != PERF__MSG_RUN) {
      free(data);
      return 2;
    }
    r = serve(data);
    free(data);
    if (r) return 2;
  }
}
