/* supervisor.c — runs the selected tests in worker processes, with timeouts, and reports them. */
#define _GNU_SOURCE
#include "supervisor/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "baseline/baseline.h"
#include "record/claimrec.h"
#include "record/verdictline.h"
#include "supervisor/baselinedir.h"
#include "supervisor/rebaseline.h"
#include "host/clock.h"
#include "host/cpumask.h"
#include "host/hostcause.h"
#include "host/hostshare.h"
#include "record/endframe.h"
#include "record/wire.h"
#include "util/registry.h"
#include "util/units.h"
#include "report/report.h"
#include "report/headroom.h"
#include "supervisor/attempt.h"
#include "supervisor/console.h"
#include "supervisor/workerproc.h"
#include "util/progname.h"

typedef perf__workerproc worker;

/* Parses an END frame into r. Returns 0 or PERF__EPROTO. */
static int take_end(const char *data, perf__result *r)
{
  perf__endframe e;
  if (perf__endframe_parse(data, &e)) return PERF__EPROTO;
  r->outcome = (perf_outcome)e.outcome;
  if (r->outcome == PERF_OUTCOME_INCONCLUSIVE) r->outcome = PERF_OUTCOME_FAIL;
  r->nodevice = e.nodevice;
  r->broken = e.gpu_broken;
  r->baseline_state = e.baseline_missing;
  snprintf(r->reason, sizeof r->reason, "%s", e.reason);
  return 0;
}

/* Parses a CLAIM frame (freed) into a record of r. Returns 0, or
 * PERF__EPROTO when it is not a claim record (the problem goes into r's
 * lines, and the worker is stopped as for any malformed message); without
 * memory the record is dropped. */
static int take_claim(char *data, perf__result *r)
{
  perf__claimrec c;
  char err[400];
  int e = perf__claimrec_parse(data, &c, err, sizeof err);
  free(data);
  if (e == PERF__ENOMEM) return 0;
  if (e) { /* said in a line of the test's; on stderr without memory */
    char line[500], *copy;
    snprintf(line, sizeof line, "malformed claim record from the worker: %.400s", err);
    if (!(copy = strdup(line)) || perf__result_add_line(r, 0, copy))
      fprintf(stderr, "%s: %s\n", perf__progname(), line);
    return PERF__EPROTO;
  }
  char line[4096], *copy; /* its verdict line, rendered here (record/verdictline.h) */
  if (perf__verdictline_render(&c, line, sizeof line) &&
      (!(copy = strdup(line)) || perf__result_add_line(r, 0, copy)))
    fprintf(stderr, "%s: %s\n", perf__progname(), line); /* no memory: said, not kept */
  perf__result_add_claim(r, &c);
  return 0;
}

static perf__rebaseline_runs *collect; /* --update-baselines: records of this run */
static int collect_run;

/* Shows a NOTICE once per run (every fresh worker may repeat it). Takes
 * ownership of line. */
static void notice_once(char *line)
{
  static char *seen[32];
  static size_t nseen;
  for (size_t i = 0; i < nseen; i++)
    if (!strcmp(seen[i], line)) {
      free(line);
      return;
    }
  perf__console_notice(line);
  if (nseen < sizeof seen / sizeof seen[0])
    seen[nseen++] = line;
  else
    free(line);
}

/* Shows a worker's INFO line unless one on the same subject (the text
 * before ':') was shown: every fresh worker measures its floors again.
 * Takes ownership of line. */
static void info_once(char *line)
{
  static char *seen[16];
  static size_t nseen;
  size_t subject = strcspn(line, ":");
  for (size_t i = 0; i < nseen; i++)
    if (strncmp(seen[i], line, subject) == 0 && seen[i][subject] == ':') {
      free(line);
      return;
    }
  perf__console_info(line);
  if (nseen < sizeof seen / sizeof seen[0])
    seen[nseen++] = line;
  else
    free(line);
}

/* Handles one frame; returns 1 at END, 0 otherwise, <0 on a bad frame. */
static int handle(int type, char *data, perf__result *r)
{
  switch (type) {
  case PERF__MSG_INFO:
    info_once(data);
    return 0;
  case PERF__MSG_NOTICE:
    notice_once(data);
    return 0;
  case PERF__MSG_RECORD: {
    int err = collect ? perf__rebaseline_take(collect, data, collect_run) : 0;
    free(data);
    return err;
  }
  case PERF__MSG_LINE:
  case PERF__MSG_VLINE:
    perf__result_add_line(r, type == PERF__MSG_VLINE, data);
    return 0;
  case PERF__MSG_CLAIM:
    return take_claim(data, r);
  case PERF__MSG_END: {
    int err = take_end(data, r);
    free(data);
    return err ? err : 1;
  }
  default:
    free(data);
    return PERF__EPROTO;
  }
}

/* Reads frames that are complete; returns 1 at END, 0 for more, -1 when the
 * result pipe closed or broke. */
static int pump_results(worker *w, perf__result *r)
{
  long got = perf__wire_fill(&w->rb, w->res);
  int type, done = 0;
  char *data;
  size_t len;
  for (;;) {
    int t = perf__wire_take(&w->rb, &type, &data, &len);
    if (t == 0) break;
    if (t < 0) return -1;
    w->heard = 1;
    done = handle(type, data, r);
    if (done) return done < 0 ? -1 : 1;
  }
  return got <= 0 ? -1 : 0;
}

/* Waits for the running test to finish, die or time out. Returns 1 when
 * the worker is still good for another test, 0 when it is gone, PERF__EIO
 * when it never started (exec failed). */
static int await_end(worker *w, double timeout_s, perf__result *r)
{
  double deadline = perf__clock_now() + timeout_s;
  int out_open = 1;
  for (;;) {
    double left = deadline - perf__clock_now();
    if (left <= 0) {
      perf__workerproc_drain(w, r);
      perf__hostload now; /* read before the kill: the worker's CPU time */
      char cause[500];
      perf__hostload_read(&now, w->pid);
      perf__hostcause_name(&w->at_start, &now, perf__hostshare_cpus(), perf__hostshare_threads(),
                           cause, sizeof cause);
      perf__workerproc_stop(w, 1);
      r->outcome = PERF_OUTCOME_FAIL;
      snprintf(r->reason, sizeof r->reason,
               "timed out after %g s (worker killed); the host: %s", timeout_s, cause);
      return 0;
    }
    struct pollfd p[2] = {{.fd = w->res, .events = POLLIN},
                          {.fd = out_open ? w->out : -1, .events = POLLIN}};
    int n = poll(p, 2, (int)(left * 1000) + 1);
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    if (p[1].revents) {
      char buf[4096];
      ssize_t k = read(w->out, buf, sizeof buf);
      if (k > 0) perf__result_add_output(r, buf, (size_t)k);
      else if (k == 0) out_open = 0;
    }
    if (p[0].revents) {
      int s = pump_results(w, r);
      if (s == 1) {
        perf__workerproc_drain(w, r);
        return 1;
      }
      if (s < 0) break;
    }
  }
  perf__workerproc_drain(w, r);
  perf__workerproc_close_fd(&w->cmd);
  int status = perf__workerproc_reap(w, 2000);
  w->pid = 0;
  perf__workerproc_close_fd(&w->res);
  perf__workerproc_close_fd(&w->out);
  perf__wire_buf_free(&w->rb);
  perf__workerproc_death(status, r);
  if (!w->heard && WIFEXITED(status) && WEXITSTATUS(status) == 127)
    return PERF__EIO; /* exec failed: nothing can run */
  return 0;
}

/* Runs one test in w (starting w if needed). Returns 1 when w may serve the
 * next test, 0 when it is gone, PERF__EIO when no worker could start. */
static int run_one(worker *w, const perf__registry_test *t, const perf__options_cli *cli,
                   int argc, char **argv, perf__result *r)
{
  perf__registry_fullname(t, r->name, sizeof r->name);
  double t0 = perf__clock_now();
  if (w->pid <= 0) {
    if (perf__workerproc_start(w, argc, argv)) return PERF__EIO;
  }
  r->worker_pid = (long)w->pid;
  perf__hostload_read(&w->at_start, w->pid);
  int sent = perf__wire_send(w->cmd, PERF__MSG_RUN, r->name, strlen(r->name)) == 0;
  int s = await_end(w, sent ? cli->timeout_s : 1, r);
  r->seconds = perf__clock_now() - t0;
  return s;
}

/* Confirm before failing (record/confirm.h): runs the test of r again in a
 * fresh worker w, told first (KEEP) which claims to take from r, the first
 * attempt; r then holds both attempts. Returns as run_one. When no worker
 * can start (said on stderr) or memory runs out, r stays the first
 * attempt's. */
static int confirm(worker *w, const perf__registry_test *t, const perf__options_cli *cli, int argc,
                   char **argv, perf__result *r)
{
  size_t len;
  char *keep = perf__attempt_keep_text(r, &len);
  perf__result second = {0};
  perf__workerproc_stop(w, 0); /* a fresh worker: nothing of the first attempt's process stays */
  if (!keep) return 1; /* without memory the first attempt stands */
  if (perf__workerproc_start(w, argc, argv)) {
    fprintf(stderr, "%s: cannot start a worker for the second attempt of %s: %s\n",
            perf__progname(), r->name, strerror(errno));
    free(keep);
    return 1;
  }
  perf__wire_send(w->cmd, PERF__MSG_KEEP, keep, len); /* a worker gone: RUN finds it */
  free(keep);
  int s = run_one(w, t, cli, argc, argv, &second);
  if (s == PERF__EIO) { /* it could not exec: no later test can run either */
    perf__result_free(&second);
    return s;
  }
  perf__attempt_combine(&second, r);
  *r = second;
  return s;
}

/* Descriptors 0-2 must be taken before pipes are made, or a pipe end could
 * land on one and be overwritten in the worker. Never fails visibly. */
static void hold_std_fds(void)
{
  int fd;
  while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2) {
  }
  if (fd > 2) close(fd);
}

static size_t strict_missing;      /* tests --strict-baselines turned into exit 2 */
static int no_gpu_required;        /* --require-gpu turned a no-device skip into exit 2 */
static char strict_names[300];     /* the first of them, for the reason */

/* Exit code after one test (0, 1 or 2, keeping the worst). */
static int code_after(int code, const perf__result *r, const perf__options_cli *cli)
{
  int c = 0;
  if (r->outcome == PERF_OUTCOME_FAIL || r->outcome == PERF_OUTCOME_ERROR) c = 1;
  if (r->outcome == PERF_OUTCOME_SKIP && r->nodevice && cli->require_gpu) c = 2, no_gpu_required = 1;
  if (r->baseline_state == 2) c = 2; /* a malformed baseline file */
  if (r->baseline_state == 1 && cli->strict_baselines && !cli->update_baselines) {
    c = 2;
    size_t used = strlen(strict_names);
    if (strict_missing++ < 3)
      snprintf(strict_names + used, sizeof strict_names - used, "%s%s", used ? ", " : "",
               r->name);
  }
  return c > code ? c : code;
}

/* Says why the run exits 2 where no line said it yet. Never fails. */
static void tell_exit_2(void)
{
  if (strict_missing)
    fprintf(stderr, "%s: exit 2: --strict-baselines: %zu %s measured workloads with "
            "no entry in this machine's baseline file (%s%s); --verbose names each, "
            "--update-baselines records them\n", perf__progname(), strict_missing,
            perf__units_noun((long long)strict_missing, "test", "tests"), strict_names,
            strict_missing > 3 ? ", ..." : "");
}

/* Writes the collected baselines: every entry of the tests that passed in
 * all their runs (all with --force). Returns the new exit code: 2 when a
 * file could not be written, at least 1 when an entry was not written. */
static int write_baselines(const perf__options_cli *cli, int code)
{
  char err[700] = "";
  unsigned how = (cli->accept_wide ? PERF__REBASELINE_ACCEPT_WIDE : 0) |
                 (cli->force ? PERF__REBASELINE_FORCE : 0);
  int r = perf__rebaseline_write(collect, how, err, sizeof err);
  fflush(stdout);
  if (r) {
    fprintf(stderr, "%s: baselines not written: %s; that file is unchanged\n", perf__progname(),
            err);
    return 2;
  }
  const char *names;
  size_t failed = perf__rebaseline_failed_tests(collect, &names);
  if (failed && !cli->force)
    fprintf(stderr, "%s: no baseline entries written for %zu %s that failed (their old entries "
            "kept): %s; --force writes them\n", perf__progname(), failed,
            perf__units_noun((long long)failed, "test", "tests"), names);
  size_t flagged = perf__rebaseline_flagged(collect, &names);
  if (!flagged) return code;
  fprintf(stderr, "%s: %zu baseline %s not written (old entries kept): %s; see the table "
          "above, or give --accept-wide to write them\n", perf__progname(), flagged,
          perf__units_noun((long long)flagged, "entry", "entries"), names);
  return code > 1 ? code : 1;
}

/* One run of the selected tests: its worker, what it was asked, the
 * results so far, the exit code. */
typedef struct session {
  worker w;
  const perf__options_cli *cli;
  int argc;
  char **argv;
  const perf__registry_test **tests;
  size_t n;
  perf__result *results;
  double *took;        /* the longest each test took */
  size_t done, failed; /* results taken; of them, failed */
  int code;
} session;

/* Runs test t into r (and its second attempt where one is needed), prints
 * its result and counts it into *code and *failed. Returns 1, with *code 2
 * and the reason on stderr, when no worker could start (r then does not
 * count); 0 otherwise. */
static int one_test(session *S, const perf__registry_test *t, perf__result *r)
{
  const perf__options_cli *cli = S->cli;
  int s = run_one(&S->w, t, cli, S->argc, S->argv, r);
  if (s == 1 && !cli->no_confirm && !cli->update_baselines && perf__attempt_needed(r) &&
      !perf__attempt_shared_out(r))
    s = confirm(&S->w, t, cli, S->argc, S->argv, r);
  if (s == PERF__EIO) {
    fprintf(stderr, "%s: cannot start a worker process: %s\n", perf__progname(),
            r->reason[0] ? r->reason : strerror(errno));
    S->code = 2;
    return 1;
  }
  perf__console_result(r);
  /* A test that did not pass may have left state behind; a worker whose
   * CUDA runtime failed to start cannot see a later test's. */
  if (s == 1 && (cli->isolate || r->outcome != PERF_OUTCOME_PASS || r->broken))
    perf__workerproc_stop(&S->w, 0);
  S->code = code_after(S->code, r, cli);
  int bad = r->outcome == PERF_OUTCOME_FAIL || r->outcome == PERF_OUTCOME_ERROR;
  if (bad && collect) perf__rebaseline_failed(collect, r->name, collect_run, r->reason);
  S->failed += bad;
  return 0;
}

/* --update-baselines' run `run` past the first PERF__UPDATE_RUNS
 * (rebaseline.h): the tests whose entries have not settled, each in a
 * fresh worker, their results after *done, while the time since the
 * extra runs began (*spent, seconds) and the longest a test took (took[i])
 * stay within cli->update_budget_s. Returns 1 when no worker could start
 * (code 2); *more gets how many tests ran (0: every entry settled, or the
 * budget is spent: then said). */
static int run_more(session *S, int run, double *spent, size_t *more)
{
  const perf__options_cli *cli = S->cli;
  char name[400], why[300], list[700] = "";
  size_t want = 0, used = 0, n = S->n;
  int *pick = calloc(n ? n : 1, sizeof *pick);
  if (!pick) return *more = 0, 0; /* without memory the runs so far decide */
  for (size_t i = 0; i < n; i++) {
    pick[i] = perf__rebaseline_wants_more(collect, perf__registry_fullname(S->tests[i], name,
                                          sizeof name), run, why, sizeof why);
    if (!pick[i]) continue;
    want++;
    if (used < sizeof list)
      used += (size_t)snprintf(list + used, sizeof list - used, "%s%s (%s)", used ? ", " : "", name,
                               why);
  }
  *more = 0;
  if (want)
    printf("perfgate: --update-baselines: run %d (at most %d) of the %zu %s whose entries have "
           "not settled: %s\n", run + 1, (int)cli->update_runs, want,
           perf__units_noun((long long)want, "test", "tests"), list);
  collect_run = run;
  for (size_t i = 0; i < n; i++) {
    if (!pick[i]) continue;
    if (*spent + S->took[i] > cli->update_budget_s) {
      printf("perfgate: --update-baselines: %s not run again: it would pass the budget of the extra "
             "runs (%.0f s, %.0f s spent: --update-budget); its entries are judged from the runs "
             "they have\n", perf__registry_fullname(S->tests[i], name, sizeof name),
             cli->update_budget_s, *spent);
      continue;
    }
    perf__workerproc_stop(&S->w, 0);
    perf__result *r = &S->results[S->done];
    if (one_test(S, S->tests[i], r)) return free(pick), 1;
    S->done++; /* a worker that could not start is not counted, as in the runs before */
    (*more)++;
    *spent += r->seconds;
    if (r->seconds > S->took[i]) S->took[i] = r->seconds;
  }
  free(pick);
  return 0;
}

/* --update-baselines' checks of the baseline directory before anything
 * runs: 0, or 2 (said on stderr). A malformed file would end every test of
 * the update as ERROR, and another machine's file of this host's name would
 * refuse the merge after measuring: both are found first. */
static int update_can_start(const perf__options_cli *cli)
{
  char err[700];
  if (perf__baselinedir_probe(cli->baseline_dir, err, sizeof err)) {
    fprintf(stderr, "%s: --update-baselines: %s (nothing was run)\n", perf__progname(), err);
    return 2;
  }
  if (perf__baselinedir_check(cli->baseline_dir, 0, "--update-baselines", NULL, stderr) ||
      perf__baselinedir_host_file(cli->baseline_dir, "--update-baselines", stderr)) {
    fprintf(stderr, "%s: --update-baselines: nothing was run; fix or remove that file\n",
            perf__progname());
    return 2;
  }
  return 0;
}

/* Registers the run in the host's lock directory (returned for
 * perf__hostshare_unregister; < 0 and said on stderr where it cannot) and
 * says what the console shows before the first test. Never fails. */
static int begin_run(const perf__options_cli *cli, int runs, int max_runs)
{
  char err[700];
  int shared = perf__hostshare_register(err, sizeof err); /* other runs share the CPUs with it */
  if (shared < 0)
    fprintf(stderr, "%s: this run does not share the CPUs with other perfgate runs on the "
                    "host: %s\n", perf__progname(), err);
  if (cli->verbose) {
    char cpus[5000];
    perf__hostshare_describe(cpus, sizeof cpus);
    printf("perfgate: %s\n", cpus);
  }
  if (cli->shard_said && *cli->shard_said) printf("perfgate: %s\n", cli->shard_said);
  if (collect)
    printf("perfgate: --update-baselines: %d runs of every test, then up to %d more of the tests "
           "whose entries have not settled (--update-runs=%d), for at most %.0f s more "
           "(--update-budget)\n", runs, max_runs - runs, max_runs, cli->update_budget_s);
  return shared;
}

/* After the last test and the reports: the headroom table, why the run
 * exits 2 (code) and the summary. Never fails. */
static void end_run(const perf__options_cli *cli, const perf__result *results, size_t done,
                    int code)
{
  if (cli->repeat > 1) {
    perf__headroom_row *rows;
    size_t nrows = perf__headroom_build(results, done, &rows);
    perf__headroom_print(stdout, rows, nrows);
    free(rows);
  }
  /* why the run exits 2, before the summary: that stays the last line */
  if (code == 2) tell_exit_2();
  if (no_gpu_required)
    fprintf(stderr, "%s: --require-gpu: a test found no usable CUDA device\n", perf__progname());
  fflush(stderr);
  perf__console_summary(results, done);
}

/* See supervisor.h. */
int perf__supervisor_run(const perf__options_cli *cli, const perf__registry_test **tests, size_t n,
                    int argc, char **argv)
{
  int runs = cli->update_baselines ? PERF__UPDATE_RUNS : 1;
  int max_runs = cli->update_baselines ? (int)cli->update_runs : 1;
  time_t started = time(NULL);
  if (cli->update_baselines && update_can_start(cli)) return 2;
  perf__result *results = calloc(n * (size_t)max_runs, sizeof *results);
  double *took = calloc(n ? n : 1, sizeof *took); /* the longest each test took */
  if (cli->update_baselines) collect = perf__rebaseline_new(max_runs);
  if (!results || !took || (cli->update_baselines && !collect)) {
    fprintf(stderr, "%s: out of memory\n", perf__progname());
    free(results);
    free(took);
    perf__rebaseline_free(collect);
    collect = NULL;
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  /* A file-size limit (ulimit -f) makes a write fail with EFBIG, reported,
   * instead of killing the process in the middle of a baseline update. */
  signal(SIGXFSZ, SIG_IGN);
  hold_std_fds();
  int shared = begin_run(cli, runs, max_runs);
  session S = {.w = {.pid = 0, .cmd = -1, .res = -1, .out = -1}, .cli = cli, .argc = argc,
               .argv = argv, .tests = tests, .n = n, .results = results, .took = took};
  int broken = 0;
  for (int run = 0; run < runs && !broken; run++) {
    collect_run = run;
    if (runs > 1) printf("perfgate: --update-baselines: run %d of %d\n", run + 1, runs);
    perf__workerproc_stop(&S.w, 0); /* separate runs: a fresh worker each */
    for (size_t i = 0; i < n; i++, S.done++) {
      perf__result *r = &results[S.done];
      char name[sizeof r->name];
      perf__console_progress(perf__registry_fullname(tests[i], name, sizeof name), S.done + 1,
                            n * (size_t)runs);
      if ((broken = one_test(&S, tests[i], r))) break;
      if (r->seconds > took[i]) took[i] = r->seconds;
    }
  }
  /* then the tests whose entries need more runs, one run at a time */
  double spent = 0;
  size_t more = 1;
  for (int run = runs; collect && run < max_runs && !broken && more; run++)
    broken = run_more(&S, run, &spent, &more);
  free(took);
  perf__workerproc_stop(&S.w, 0);
  perf__hostshare_unregister(shared);
  int code = S.code;
  size_t done = S.done;
  if (collect && !broken) code = write_baselines(cli, code);
  if (perf__report_write(cli, tests, n, results, done, started, code)) code = 2;
  end_run(cli, results, done, code);
  for (size_t i = 0; i < n * (size_t)max_runs; i++) perf__result_free(&results[i]);
  free(results);
  perf__rebaseline_free(collect);
  collect = NULL;
  return code;
}
