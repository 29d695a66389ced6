/* run.c — perf_main: parse the command line, select tests, then act as supervisor or worker. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/baseline.h"
#include "host/cpumask.h"
#include "worker/process/probe.h"
#include "cli/options.h"
#include "util/version.h"
#include "report/commitreport.h"
#include "report/hwmove.h"
#include "report/report.h"
#include "report/merge.h"
#include "report/mergehistory.h"
#include "report/outputs.h"
#include "report/recorder.h"
#include "report/trendreport.h"
#include "supervisor/baselinedir.h"
#include "supervisor/devices.h"
#include "supervisor/runner.h"
#include "util/filter.h"
#include "util/label.h"
#include "perfgate.h"
#include "util/registry.h"
#include "cli/shard.h"
#include "supervisor/console.h"
#include "util/status.h"
#include "util/units.h"
#include "supervisor/supervisor.h"
#include "worker/process/worker.h"
#include "util/progname.h"

/* This process's shard, from the engine that started it, and its run id:
 * run_id (--run-id), else the environment's (shard.h). Returns 0, or
 * PERF__EUSAGE with a message on stderr. */
static int sharding(perf__shard *sh, const char *run_id)
{
  char err[600];
  if (!perf__shard_from_env(sh, run_id, err, sizeof err)) return 0;
  fprintf(stderr, "%s: %s\n", perf__progname(), err);
  return PERF__EUSAGE;
}

/* The tests matching the filter (an opt-in test only where the filter
 * names its suite), then those of this shard (GoogleTest shards the
 * filtered list), in registration order. *matched counts the
 * filter's matches. NULL when out of memory. */
static const perf__registry_test **select_tests(const perf__options_cli *cli, long total,
                                       long index, size_t *n, size_t *matched)
{
  size_t count = 0;
  for (const perf__registry_test *t = perf__registry_all(); t; t = t->next) count++;
  const perf__registry_test **sel = calloc(count ? count : 1, sizeof *sel);
  *n = *matched = 0;
  if (!sel) return NULL;
  char name[512];
  for (const perf__registry_test *t = perf__registry_all(); t; t = t->next) {
    perf__registry_fullname(t, name, sizeof name);
    if (t->opt_in ? !perf__filter_explicit(cli->filter, name)
                  : !perf__filter_match(cli->filter, name))
      continue;
    if ((long)((*matched)++ % (size_t)total) == index) sel[(*n)++] = t;
  }
  return sel;
}

static int duplicate_names(void)
{
  const perf__registry_test *first, *second = perf__registry_duplicate(&first);
  if (!second) return 0;
  fprintf(stderr, "%s: two tests are named %s.%s (%s:%d and %s:%d)\n", perf__progname(),
          first->suite, first->name, first->file, first->line, second->file,
          second->line);
  return 1;
}

/* Whether a command that reads the baseline directory can: a missing one
 * is a project with no baselines yet, a path that is no readable directory
 * is refused. Returns 0, or 2 after the problem on stderr. */
static int baseline_dir_ok(const perf__options_cli *cli, const char *prog)
{
  char err[4400];
  int missing;
  if (!perf__baselinedir_usable(cli->baseline_dir, 0, &missing, err, sizeof err)) return 0;
  fprintf(stderr, "%s: %s\n", prog, err);
  return 2;
}

/* No two outputs of the command on one file (devices: the --devices list).
 * Returns 0, or 2 after the problem on stderr. */
static int outputs_ok(const perf__options_cli *cli, const char *prog, const int *devices, int nd)
{
  char err[9000];
  if (!perf__outputs_check(cli, devices, nd, err, sizeof err)) return 0;
  fprintf(stderr, "%s: %s\n", prog, err);
  return 2;
}

/* Prints the baseline file this machine's runs use (its directory need not
 * exist yet); CUDA is touched only in a child process. Returns the exit
 * code (2 when the path is no readable directory or no child could start). */
static int print_baseline_file(const perf__options_cli *cli, const char *prog)
{
  char path[4300];
  if (baseline_dir_ok(cli, prog)) return 2;
  if (perf__probe_baseline_file(cli->baseline_dir, path, sizeof path)) {
    fprintf(stderr, "%s: --print-baseline-file: %s\n", prog, strerror(errno));
    return 2;
  }
  fputs(path, stdout);
  return 0;
}

/* splitmix64: the --shuffle order from the seed. */
static uint64_t next_random(uint64_t *state)
{
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* The selection --repeat times over, each pass shuffled with --shuffle (a
 * Fisher-Yates pass from a generator seeded by --seed). NULL when out of
 * memory. */
static const perf__registry_test **plan(const perf__options_cli *cli, const perf__registry_test **sel, size_t n,
                               size_t *out)
{
  *out = n * (size_t)cli->repeat;
  const perf__registry_test **p = calloc(*out ? *out : 1, sizeof *p);
  uint64_t state = cli->seed;
  for (size_t r = 0; p && r < (size_t)cli->repeat; r++) {
    const perf__registry_test **pass = p + r * n;
    memcpy(pass, sel, n * sizeof *pass);
    for (size_t i = n; cli->shuffle && i > 1; i--) {
      size_t j = (size_t)(next_random(&state) % i);
      const perf__registry_test *t = pass[i - 1];
      pass[i - 1] = pass[j];
      pass[j] = t;
    }
  }
  return p;
}

/* GTEST_SHARD_STATUS_FILE: the file is created to tell the caller that this
 * program shards. Returns 0, or 2 with a message. */
static int shard_status_file(const char *prog)
{
  const char *path = getenv("GTEST_SHARD_STATUS_FILE");
  if (!path || !*path) return 0;
  FILE *f = fopen(path, "a");
  if (!f || fclose(f)) {
    fprintf(stderr, "%s: GTEST_SHARD_STATUS_FILE=%s: %s\n", prog, path, strerror(errno));
    return 2;
  }
  return 0;
}

/* A report format on stdout (the option opt's): stdout carries only that
 * report (cli->report_out); everything else printed goes to stderr.
 * Returns 0, or 2 with a message. */
static int stdout_redirect(perf__options_cli *cli, const char *prog, const char *opt)
{
  fflush(stdout);
  int fd = dup(STDOUT_FILENO);
  if (fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0 || !(cli->report_out = fdopen(fd, "w"))) {
    fprintf(stderr, "%s: %s: cannot set up stdout: %s\n", prog, opt, strerror(errno));
    return 2;
  }
  return 0;
}

/* The worker's options from the command line; runs as a worker until the
 * supervisor closes the pipe. Returns its exit code. */
static int serve_as_worker(const perf__options_cli *cli)
{
  perf__context_opts o = {
      .budget_s = cli->budget_s,
      .verbose = cli->verbose,
      .seed = cli->seed,
      .allow_no_sync_check = cli->allow_no_sync_check,
      .baseline_dir = cli->baseline_dir,
      .trace_dir = cli->trace_dir,
      .update_baselines = cli->update_baselines,
      .baseline_check_all = cli->baseline_check_all,
      .strict_improvements = cli->strict_improvements,
      .confirm = !cli->no_confirm && !cli->update_baselines,
  };
  return perf__worker_main(&o, cli->worker_in, cli->worker_out);
}

/* --list, or a selection with no test: prints the names, or why nothing
 * runs. Returns the exit code: 2 when the filter matched no test, with
 * --list as without it (a typo in a filter is the same mistake either way). */
static int list_or_nothing(const perf__options_cli *cli, const char *prog, const perf__registry_test **sel,
                           size_t n, size_t matched, long index, long total)
{
  char name[512];
  for (size_t i = 0; cli->list && i < n; i++)
    printf("%s\n", perf__registry_fullname(sel[i], name, sizeof name));
  if (matched == 0)
    fprintf(stderr, "%s: no test matches%s%s\n", prog, cli->filter ? " --filter=" : "",
            cli->filter ? cli->filter : "");
  else if (!cli->list)
    printf("perfgate: shard %ld of %ld has no test\n\n0 passed, 0 failed, 0 skipped\n", index,
           total);
  return matched > 0 ? 0 : 2;
}

/* Everything a run checks before it prints or runs anything: the --devices
 * list (into ids, *nd; --devices=all where no GPU is usable clears
 * cli->devices, with why in note[len], to run as without it), that no two
 * outputs are one file, the baseline directory, each report file (--plots'
 * directory is made), the history. Returns 0, or 2 after the problem on
 * stderr. */
static int preflight(perf__options_cli *cli, const char *prog, int *ids, int *nd, char *note, size_t len)
{
  char err[4400];
  *nd = 0;
  note[0] = '\0';
  if (cli->devices && (*nd = perf__devices_parse(cli->devices, ids, note, len)) < 0) {
    fprintf(stderr, "%s: %s\n", prog, note);
    return 2;
  }
  if (cli->devices && *nd == 0) cli->devices = NULL;
  else note[0] = '\0';
  for (int k = 0; cli->devices && k < *nd; k++) {
    char id[PERF__LABEL_MAX + 1];
    if (perf__devices_run_id(cli, ids[k], id, sizeof id, err, sizeof err)) {
      fprintf(stderr, "%s: %s\n", prog, err);
      return 2;
    }
  }
  if (outputs_ok(cli, prog, ids, *nd) || baseline_dir_ok(cli, prog))
    return 2;
  if (perf__report_check(cli, err, sizeof err) || perf__recorder_check(cli, err, sizeof err)) {
    fprintf(stderr, "%s: %s\n", prog, err);
    return 2;
  }
  return 0;
}

/* The run's first line: how many tests, how often, the budget and timeout.
 * Never fails. */
static void announce(const perf__options_cli *cli, size_t n)
{
  printf("perfgate: %zu %s", n, perf__units_noun((long long)n, "test", "tests"));
  if (cli->repeat > 1) printf(", %llu times", (unsigned long long)cli->repeat);
  if (cli->shuffle) printf(", shuffled (seed %llu)", (unsigned long long)cli->seed);
  printf(", claim budget %g s, test timeout %g s\n", cli->budget_s, cli->timeout_s);
}

/* --help. Never fails. */
static int mode_help(perf__options_cli *cli, const char *prog)
{
  (void)cli;
  perf__options_help(stdout, prog);
  return 0;
}

/* --version. Never fails. */
static int mode_version(perf__options_cli *cli, const char *prog)
{
  (void)cli, (void)prog;
  char line[128];
  puts(perf__version_line(line, sizeof line, CUDART_VERSION));
  return 0;
}

/* --compare-baselines: exit 0, or 2 (said why). */
static int mode_compare_baselines(perf__options_cli *cli, const char *prog)
{
  (void)prog;
  return perf__hwmove_run(cli);
}

/* --check-baselines: exit 0, 1 or 2, as perf__baselinedir_check says. */
static int mode_check_baselines(perf__options_cli *cli, const char *prog)
{
  (void)prog;
  return perf__baselinedir_check(cli->baseline_dir, perf__options_given(cli, "--baseline-dir"),
                                 "--check-baselines", stdout, stderr);
}

/* --trend: 2 when an output or the baseline directory cannot be used. */
static int mode_trend(perf__options_cli *cli, const char *prog)
{
  return outputs_ok(cli, prog, NULL, 0) || baseline_dir_ok(cli, prog) ? 2
                                                                      : perf__trendreport_run(cli);
}

/* --commit-report: 2 when an output cannot be written. */
static int mode_commit_report(perf__options_cli *cli, const char *prog)
{
  return outputs_ok(cli, prog, NULL, 0) ? 2 : perf__commitreport_run(cli);
}

/* --merge, of reports or of the history's shards: 2 when an output
 * cannot be written. */
static int mode_merge(perf__options_cli *cli, const char *prog)
{
  if (outputs_ok(cli, prog, NULL, 0)) return 2;
  return cli->merge_n ? perf__merge(cli) : perf__mergehistory_run(cli);
}

/* The modes that run no test, one row each: the option's field that
 * selects it and what it does; the first row set wins (options.c refuses
 * two modes at once). Anything else runs the selected tests. */
#define PERF__RUN_MODE_MAP(X)                                 \
  X(help, mode_help)                                          \
  X(version, mode_version)                                    \
  X(print_baseline_file, print_baseline_file)                 \
  X(compare_baselines, mode_compare_baselines)                \
  X(check_baselines, mode_check_baselines)                    \
  X(trend, mode_trend)                                        \
  X(commit_report, mode_commit_report)                        \
  X(merge, mode_merge)

/* The mode cli selects, run into *code: 1 when one ran, 0 for a run of
 * tests. */
static int run_mode(perf__options_cli *cli, const char *prog, int *code)
{
#define PERF__X(field, fn)           \
  if (cli->field) {                  \
    *code = fn(cli, prog);           \
    return 1;                        \
  }
  PERF__RUN_MODE_MAP(PERF__X)
#undef PERF__X
  return 0;
}

/* The shard this process runs (cli's shard fields and run id), said on
 * stderr where the history would not group it. Returns 0, or 2 (said why). */
static int take_shard(perf__options_cli *cli, const char *prog, perf__shard *sh)
{
  if (shard_status_file(prog) || duplicate_names() || sharding(sh, cli->run_id)) return 2;
  cli->shard_index = sh->index;
  cli->shard_total = sh->total;
  cli->shard_said = sh->said;
  cli->run_id = sh->run_id[0] ? sh->run_id : NULL;
  cli->run_id_from = sh->run_id_from;
  if (sh->total > 1 && !cli->run_id && cli->history && !cli->list)
    fprintf(stderr, "perfgate: shard %ld of %ld (from 0) has no run id (--run-id, PERFGATE_RUN_ID, the "
                    "engine's or the CI's): the history records it as a run of its own, not grouped with "
                    "the other shards (no merge from the history, no whole-run count)\n",
            sh->index, sh->total);
  return 0;
}

/* Runs the tests of order (runs of them) on the GPUs ids[nd] after the
 * runner check: the run's exit code, 2 without memory. */
static int run_order(perf__options_cli *cli, const char *prog, int *ids, int nd,
                     const perf__registry_test **order, size_t runs)
{
  int ngpus = cli->devices ? nd : 0, code = 2;
  perf__preflight *pf = calloc(ngpus ? (size_t)ngpus : 1, sizeof *pf);
  if (!pf)
    fprintf(stderr, "%s: out of memory\n", prog);
  else if (!(code = perf__runner_check(cli, ids, ngpus, pf))) {
    cli->preflight = pf;
    cli->npreflight = ngpus ? ngpus : 1;
    code = cli->devices ? perf__devices_run(cli, ids, nd, order, runs, cli->argc, cli->argv)
                        : perf__supervisor_run(cli, order, runs, cli->argc, cli->argv);
  }
  free(pf);
  return code;
}

/* Runs the selected tests sel[n] of shard index of total: the preflight,
 * the plan, then the run. The run's exit code, or 2 (said why). */
static int run_selected(perf__options_cli *cli, const char *prog, const perf__registry_test **sel,
                        size_t n, long index, long total)
{
  if (n == 0) printf("perfgate: shard %ld of %ld (from 0) has no test\n", index, total);
  int ids[PERF__DEVICES_MAX], nd;
  char note[1200];
  if (preflight(cli, prog, ids, &nd, note, sizeof note)) return 2;
  const perf__report_format *on_stdout = perf__report_on_stdout(cli);
  if (on_stdout && stdout_redirect(cli, prog, on_stdout->opt)) return 2;
  size_t runs;
  const perf__registry_test **order = plan(cli, sel, n, &runs);
  if (!order) {
    fprintf(stderr, "%s: out of memory\n", prog);
    return 2;
  }
  perf__console_setup(cli->color, cli->verbose);
  if (note[0]) printf("perfgate: %s\n", note);
  announce(cli, n);
  int code = run_order(cli, prog, ids, nd, order, runs);
  free(order);
  return code;
}

/* Public: see perfgate.h for the exit codes. */
int perf_main(int argc, char **argv)
{
  perf__options_cli cli;
  char err[400];
  perf__progname_set(argc > 0 ? argv[0] : NULL);
  cpu_set_t cpus; /* the run's CPUs, decided here on the main thread (cpumask.h) */
  (void)perf__cpumask_get(&cpus);
  const char *prog = perf__progname();
  if (perf__options_parse(argc, argv, &cli, err, sizeof err)) {
    fprintf(stderr, "%s: %s\n", prog, err);
    return 2;
  }
  if (cli.worker_in >= 0) return serve_as_worker(&cli);
  /* A report written to a pipe that closed (EPIPE) or past a file-size
   * limit (EFBIG) is an error with a message and exit 2, not a silent
   * death by signal: for --merge and --trend as for a run. */
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN);
  cli.argc = argc;
  cli.argv = argv;
  int code;
  if (run_mode(&cli, prog, &code)) return code;
  perf__shard sh;
  if (take_shard(&cli, prog, &sh)) return 2;
  size_t n, matched;
  const perf__registry_test **sel = select_tests(&cli, sh.total, sh.index, &n, &matched);
  if (!sel) {
    fprintf(stderr, "%s: out of memory\n", prog);
    return 2;
  }
  /* A shard the tests did not reach still runs (no test): its reports and
   * its record say so, and a merge of the run finds it. */
  if (cli.list || matched == 0 || (n == 0 && sh.total < 2))
    code = list_or_nothing(&cli, prog, sel, n, matched, sh.index, sh.total);
  else
    code = run_selected(&cli, prog, sel, n, sh.index, sh.total);
  free(sel);
  return code;
}
