/* devices.c — --devices: one supervisor per GPU in parallel, pinned by CUDA_VISIBLE_DEVICES. */
#define _GNU_SOURCE
#include "supervisor/devices.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/cpumask.h"
#include "host/hostshare.h"
#include "util/label.h"
#include "util/units.h"
#include "worker/process/probe.h"
#include "report/merge.h"
#include "report/outputs.h"
#include "report/report.h"
#include "supervisor/supervisor.h"
#include "util/progname.h"

/* See devices.h. */
int perf__devices_parse(const char *spec, int *ids, char *err, size_t len)
{
  int n = 0;
  if (!strcmp(spec, "all")) {
    char why[800];
    n = perf__probe_device_count(why, sizeof why);
    for (int k = 0; k < n && k < PERF__DEVICES_MAX; k++) ids[k] = k;
    if (!n) /* as with no --devices: the tests that need a GPU skip, saying why */
      snprintf(err, len, "--devices=all: no usable CUDA device (%s): the tests run once, "
               "without --devices; those that need a GPU skip (--require-gpu makes that exit 2)",
               why);
    return n < PERF__DEVICES_MAX ? n : PERF__DEVICES_MAX;
  }
  for (const char *p = spec; *p;) {
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (end == p || errno || v < 0 || v > 1023 || (*end && *end != ',') ||
        n == PERF__DEVICES_MAX)
      return snprintf(err, len, "--devices: expected all or a list like 0,1, got '%s'", spec), -1;
    for (int k = 0; k < n; k++)
      if (ids[k] == v) return snprintf(err, len, "--devices: device %ld is listed twice", v), -1;
    ids[n++] = (int)v;
    p = *end ? end + 1 : end;
  }
  if (!n) return snprintf(err, len, "--devices: no device listed"), -1;
  /* A listed device this machine does not have would only skip its tests.
   * Without a usable device at all the tests say so themselves (skipped:
   * no CUDA device), as on a CPU-only CI machine. Under
   * CUDA_VISIBLE_DEVICES the ids may be ones the count does not see: not
   * checked then. */
  const char *visible = getenv("CUDA_VISIBLE_DEVICES");
  int have = visible ? 0 : perf__probe_device_count(NULL, 0);
  for (int k = 0; have > 0 && k < n; k++)
    if (ids[k] >= have)
      return snprintf(err, len, "--devices: device %d does not exist: this machine has %d "
                      "CUDA %s (0-%d)", ids[k], have,
                      perf__units_noun(have, "device", "devices"), have - 1), -1;
  return n;
}

/* See devices.h. */
int perf__devices_run_id(const perf__options_cli *cli, int device, char *out, size_t len, char *err,
                         size_t elen)
{
  char id[PERF__LABEL_MAX + 32], what[200];
  out[0] = '\0';
  if (!cli->run_id) return 0;
  snprintf(id, sizeof id, "%s/gpu%d", cli->run_id, device); /* the run id fits whole: <= PERF__LABEL_MAX */
  snprintf(what, sizeof what, "%s with --devices (each GPU's run is recorded under the run id and "
           "/gpuK: '.../gpu%d')", cli->run_id_from ? cli->run_id_from : "--run-id", device);
  if (perf__label_check(what, id, err, elen)) return PERF__EUSAGE;
  if (strlen(id) >= len) return snprintf(err, elen, "%s: no room for it", what), PERF__EUSAGE;
  memcpy(out, id, strlen(id) + 1);
  return 0;
}

typedef struct child {
  int id;
  pid_t pid;
  int fd;          /* its stdout and stderr */
  char buf[8192];  /* an unfinished line */
  size_t len;
  long passed, failed, skipped; /* from its last line; -1 when it had none */
} child;

/* The run each child makes on its GPU, as perf__supervisor_run takes it. */
typedef struct run {
  const perf__options_cli *cli;
  const perf__registry_test **tests;
  size_t n;
  int argc;
  char **argv;
} run;

/* The k-th of nd equal shares of this process's CPUs, so that the runs do
 * not time each other's host work; OpenMP gets what perf_host_threads()
 * gives in that share (its CPUs less the runner's one; unless
 * OMP_NUM_THREADS is set). Each child registers as a run of its own CPUs.
 * Never fails: without a share the CPUs stay shared. */
static void cpu_share(int k, int nd)
{
  cpu_set_t all, mine;
  if (perf__cpumask_get(&all)) return;
  int ncpu = CPU_COUNT(&all), per = ncpu / nd, seen = 0;
  if (per < 1) return;
  CPU_ZERO(&mine);
  for (int cpu = 0; cpu < CPU_SETSIZE && seen < (k + 1) * per; cpu++)
    if (CPU_ISSET(cpu, &all) && seen++ >= k * per) CPU_SET(cpu, &mine);
  if (perf__cpumask_set(&mine)) return;
  char threads[16];
  snprintf(threads, sizeof threads, "%d", perf__hostshare_share(per, 1));
  setenv("OMP_NUM_THREADS", threads, 0);
}

/* In the child k of nd: pinned to one GPU and its share of the CPUs,
 * reports renamed, r's run. Its run id is the run's with "/gpuK" after it:
 * each GPU's run is a run of its own in the history (two GPUs of one
 * model under one run id would read as a shard and its retry, the first
 * not counted). */
static void run_child(child *c, int k, int nd, const run *r)
{
  const perf__options_cli *cli = r->cli;
  char id[16], run_id[PERF__LABEL_MAX + 1], err[600];
  perf__options_cli mine = *cli;
  if (perf__devices_run_id(cli, c->id, run_id, sizeof run_id, err, sizeof err)) { /* checked before the run */
    fprintf(stderr, "%s: %s\n", perf__progname(), err);
    fflush(NULL);
    _exit(2);
  }
  mine.run_id = run_id[0] ? run_id : NULL;
  perf__outputs_gpu names;
  snprintf(id, sizeof id, "%d", c->id);
  setenv("CUDA_VISIBLE_DEVICES", id, 1);
  cpu_share(k, nd);
  mine.devices = NULL;
  mine.device_label = c->id;
  mine.preflight = cli->preflight ? cli->preflight + k : NULL; /* its GPU's */
  mine.npreflight = cli->preflight ? 1 : 0;
  perf__outputs_for_gpu(&mine, c->id, &names);
  fflush(NULL);
  _exit(perf__supervisor_run(&mine, r->tests, r->n, r->argc, r->argv));
}

/* Prints one line with c's label and keeps its counts when it is a
 * summary line. */
static void line_out(child *c, const char *p, int len)
{
  printf("[gpu %d] %.*s\n", c->id, len, p);
  char text[256];
  long a, b, k;
  snprintf(text, sizeof text, "%.*s", len, p);
  if (sscanf(text, "%ld passed, %ld failed, %ld skipped", &a, &b, &k) == 3)
    c->passed = a, c->failed = b, c->skipped = k;
}

/* Prints the complete lines in c's buffer with its label; flushes the rest
 * too when final. */
static void relay(child *c, int final)
{
  char *start = c->buf, *nl;
  while ((nl = memchr(start, '\n', c->len - (size_t)(start - c->buf))) != NULL) {
    line_out(c, start, (int)(nl - start));
    start = nl + 1;
  }
  c->len -= (size_t)(start - c->buf);
  memmove(c->buf, start, c->len);
  if (c->len && (final || c->len == sizeof c->buf)) {
    line_out(c, c->buf, (int)c->len);
    c->len = 0;
  }
  fflush(stdout);
}

/* Reads all children's output until every pipe closes. */
static void pump(child *c, int n)
{
  struct pollfd p[PERF__DEVICES_MAX];
  int open = n;
  for (int k = 0; k < n; k++) p[k] = (struct pollfd){.fd = c[k].fd, .events = POLLIN};
  while (open > 0) {
    if (poll(p, (nfds_t)n, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int k = 0; k < n; k++) {
      if (p[k].fd < 0 || !p[k].revents) continue;
      ssize_t r = read(c[k].fd, c[k].buf + c[k].len, sizeof c[k].buf - c[k].len);
      if (r > 0) {
        c[k].len += (size_t)r;
        relay(&c[k], 0);
      } else if (r == 0 || errno != EINTR) {
        relay(&c[k], 1);
        close(c[k].fd);
        p[k].fd = -1;
        open--;
      }
    }
  }
}

/* Each merged format's file (PERF__OPTIONS_MERGED: --json) joined from the
 * GPUs' NAME.gpuK.EXT files into NAME. Returns 0, or 2 when one could not
 * be (perf__merge_reports said why) or memory ran out (said here). */
static int merge_formats(const perf__options_cli *cli, const int *ids, int nd)
{
  int code = 0;
  char (*names)[4200] = NULL, *in[PERF__DEVICES_MAX];
  for (const perf__report_format *f = perf__report_formats(); f->opt; f++) {
    const char *path = perf__report_path(cli, f);
    if (!path || f->gpus != PERF__OPTIONS_MERGED) continue;
    if (!names && !(names = calloc((size_t)nd, sizeof *names))) {
      fprintf(stderr, "%s: out of memory\n", perf__progname());
      return 2;
    }
    for (int k = 0; k < nd; k++)
      in[k] = perf__outputs_device_path(path, ids[k], names[k], sizeof names[k]);
    perf__merge_whole whole = {cli->shard_index, cli->shard_total, cli->run_id};
    if (perf__merge_reports(path, in, nd, 0, &whole) == 2) code = 2;
  }
  free(names);
  return code;
}

/* See devices.h. */
int perf__devices_run(const perf__options_cli *cli, const int *ids, int nd,
                      const perf__registry_test **tests, size_t n, int argc, char **argv)
{
  int code = 0;
  child *c = calloc((size_t)nd, sizeof *c);
  if (!c) return fprintf(stderr, "%s: out of memory\n", perf__progname()), 2;
  printf("perfgate: %zu %s on %d %s in parallel\n", n,
         perf__units_noun((long long)n, "test", "tests"), nd,
         perf__units_noun(nd, "device", "devices"));
  run r = {cli, tests, n, argc, argv};
  int started = 0;
  for (; started < nd; started++) {
    int fd[2];
    c[started].id = ids[started];
    c[started].passed = c[started].failed = c[started].skipped = -1;
    fflush(NULL);
    if (pipe(fd) || (c[started].pid = fork()) < 0) {
      fprintf(stderr, "%s: --devices: cannot start the run on device %d: %s\n", perf__progname(),
              ids[started], strerror(errno));
      code = 2;
      break;
    }
    if (c[started].pid == 0) {
      close(fd[0]);
      for (int k = 0; k < started; k++) close(c[k].fd);
      dup2(fd[1], STDOUT_FILENO);
      dup2(fd[1], STDERR_FILENO);
      close(fd[1]);
      run_child(&c[started], started, nd, &r);
    }
    close(fd[1]);
    c[started].fd = fd[0];
  }
  pump(c, started);
  for (int k = 0; k < started; k++) {
    int status = 0;
    while (waitpid(c[k].pid, &status, 0) < 0 && errno == EINTR) {
    }
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 2;
    printf("perfgate: device %d: exit %d\n", c[k].id, rc);
    code = rc > code ? rc : code;
  }
  if (started == nd && merge_formats(cli, ids, nd)) code = 2;
  long sum[3] = {0};
  for (int k = 0; k < started; k++) {
    if (c[k].passed < 0) { /* it never got to its summary */
      fprintf(stderr, "%s: --devices: the run on GPU %d ended without its summary line "
                      "(see its [gpu %d] lines above)\n", perf__progname(), c[k].id, c[k].id);
      code = 2;
    }
    sum[0] += c[k].passed > 0 ? c[k].passed : 0;
    sum[1] += c[k].failed > 0 ? c[k].failed : 0;
    sum[2] += c[k].skipped > 0 ? c[k].skipped : 0;
  }
  printf("\n%ld passed, %ld failed, %ld skipped\n", sum[0], sum[1], sum[2]);
  free(c);
  return code;
}
