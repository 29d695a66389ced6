/* options.c — the perftest command line: options, their validation and the help text. */
#include "supervisor/options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"

/* Never fails. */
void perf__options_help(FILE *f, const char *prog)
{
  fprintf(f,
          "usage: %s [options]\n"
          "Runs the registered perf tests, one at a time, in a worker process.\n"
          "\n"
          "  --list                 list the tests (after --filter) and exit\n"
          "  --filter=POS[:POS][-NEG[:NEG]]\n"
          "                         run tests whose suite.name matches a POS glob\n"
          "                         and no NEG glob (* and ?; GoogleTest syntax)\n"
          "                         (opt-in tests, such as faults.*, only where a\n"
          "                         POS names their suite: --filter='faults.*')\n"
          "  --timeout=SECONDS      fail a test still running after this (default 60)\n"
          "  --budget=SECONDS       sampling time per claim before it is called\n"
          "                         INCONCLUSIVE (default 2)\n"
          "  --seed=N               bootstrap and --shuffle seed (default 1)\n"
          "  --repeat=N             run the selected tests N times (default 1)\n"
          "  --shuffle              run them in a random order (a new one each repeat)\n"
          "  --require-gpu          exit 2 when a test is skipped for want of a GPU\n"
          "  --isolate              a fresh worker for every test\n"
          "  --allow-no-sync-check  skip host-sync checks when CUPTI cannot attach\n"
          "                         (a profiler holds it) instead of failing them\n"
          "  --baseline-dir=DIR     where per-GPU baseline files live (default baselines)\n"
          "  --print-baseline-file  print the baseline file this machine uses and exit\n"
          "  --baseline-check=all   compare every measured workload with its baseline\n"
          "                         (default: claimed, only PERF_EXPECT_BASELINE)\n"
          "  --strict-baselines     exit 2 when this machine has no baseline (entry)\n"
          "  --strict-improvements  fail a baseline check that got faster beyond tolerance\n"
          "  --update-baselines     measure every baseline entry in 3 runs and rewrite\n"
          "                         this machine's file (make baseline-update)\n"
          "  --force                write baselines even though a test failed\n"
          "  --junit=FILE           write a JUnit XML report (one testcase per test)\n"
          "  --markdown=FILE        write a Markdown summary table (for a CI step summary)\n"
          "  --json=FILE            write everything as JSON: run, fingerprint, tests,\n"
          "                         claims and every sample with its clock\n"
          "  --plots=DIR            write SVG charts into DIR (created if missing): time\n"
          "                         against each sweep's parameter, and each ratio claim\n"
          "                         against what it needs\n"
          "  --html=FILE            write one self-contained HTML report: summary,\n"
          "                         failures first, every test's charts inline\n"
          "  --tap                  TAP 14 on stdout; the console report goes to stderr\n"
          "  --devices=all|0,1      run the tests on each listed GPU in parallel, one\n"
          "                         worker per GPU; output and reports per device\n"
          "  --merge=OUT A.json B.json ...\n"
          "                         merge the --json reports of all shards into OUT and\n"
          "                         exit with the run's code (2 if a shard is missing)\n"
          "  --verbose, -v          timer floors, warm-up and every look\n"
          "  --color=auto|always|never\n"
          "  --help, -h             this text\n"
          "\n"
          "Sharding: GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX select a shard.\n"
          "Exit status: 0 all passed (skips allowed), 1 a check failed,\n"
          "2 usage error, nothing could run, or a report file could not be written.\n",
          prog);
}

static int usage(char *err, size_t len, const char *fmt, const char *arg)
{
  snprintf(err, len, fmt, arg);
  return PERF__EUSAGE;
}

/* Parses a positive number of seconds (at most a day). */
static int seconds(const char *opt, const char *v, double *out, char *err,
                   size_t len)
{
  char *end;
  errno = 0;
  double d = strtod(v, &end);
  if (!*v || *end || errno || !(d > 0) || !isfinite(d) || d > 86400) {
    snprintf(err, len, "%s: expected a number of seconds in (0, 86400], got '%s'",
             opt, v);
    return PERF__EUSAGE;
  }
  *out = d;
  return 0;
}

static int unsigned_num(const char *opt, const char *v, uint64_t *out,
                        char *err, size_t len)
{
  char *end;
  errno = 0;
  unsigned long long u = strtoull(v, &end, 10);
  if (!*v || *end || errno || *v == '-') {
    snprintf(err, len, "%s: expected a non-negative integer, got '%s'", opt, v);
    return PERF__EUSAGE;
  }
  *out = u;
  return 0;
}

static int worker_fds(const char *v, perf__cli *cli, char *err, size_t len)
{
  if (sscanf(v, "%d,%d", &cli->worker_in, &cli->worker_out) != 2 ||
      cli->worker_in < 0 || cli->worker_out < 0)
    return usage(err, len, "--perf-worker: expected IN,OUT descriptors, got '%s'", v);
  return 0;
}

/* Splits "--opt=value" or "--opt value"; returns the value or NULL. */
static const char *value(int argc, char **argv, int *i, const char *name,
                         int *matched)
{
  size_t n = strlen(name);
  const char *a = argv[*i];
  *matched = 0;
  if (strncmp(a, name, n) != 0) return NULL;
  if (a[n] == '=') {
    *matched = 1;
    return a + n + 1;
  }
  if (a[n] != '\0') return NULL;
  *matched = 1;
  return *i + 1 < argc ? argv[++*i] : NULL;
}

static int flag(const char *a, const char *name, int *dst)
{
  if (strcmp(a, name) != 0) return 0;
  *dst = 1;
  return 1;
}

/* One option with a value; returns 1 handled, 0 not this kind, <0 error. */
static int valued(int argc, char **argv, int *i, perf__cli *cli, char *err,
                  size_t len)
{
  static const char *names[] = {"--filter", "--timeout", "--budget", "--seed",
                                "--color", "--perf-worker", "--baseline-dir",
                                "--baseline-check", "--junit", "--markdown", "--repeat", "--json",
                                "--devices", "--plots", "--html"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    int m;
    const char *v = value(argc, argv, i, names[k], &m);
    if (!m) continue;
    if (!v) return usage(err, len, "%s needs a value", names[k]);
    switch (k) {
    case 0:
      cli->filter = v;
      return 1;
    case 1:
      return seconds(names[k], v, &cli->timeout_s, err, len) ? PERF__EUSAGE : 1;
    case 2:
      return seconds(names[k], v, &cli->budget_s, err, len) ? PERF__EUSAGE : 1;
    case 3:
      return unsigned_num(names[k], v, &cli->seed, err, len) ? PERF__EUSAGE : 1;
    case 4:
      if (!strcmp(v, "auto")) cli->color = PERF__COLOR_AUTO;
      else if (!strcmp(v, "always")) cli->color = PERF__COLOR_ALWAYS;
      else if (!strcmp(v, "never")) cli->color = PERF__COLOR_NEVER;
      else return usage(err, len, "--color: expected auto, always or never, got '%s'", v);
      return 1;
    case 5:
      return worker_fds(v, cli, err, len) ? PERF__EUSAGE : 1;
    case 11:
      cli->json = v;
      return 1;
    case 12:
      if (!*v) return usage(err, len, "--devices needs all or a list like 0,1%s", "");
      cli->devices = v;
      return 1;
    case 10:
      if (unsigned_num(names[k], v, &cli->repeat, err, len)) return PERF__EUSAGE;
      if (cli->repeat < 1 || cli->repeat > 100000)
        return usage(err, len, "--repeat: expected 1..100000, got '%s'", v);
      return 1;
    case 8:
      cli->junit = v;
      return 1;
    case 13:
      cli->plots = v;
      return 1;
    case 14:
      cli->html = v;
      return 1;
    case 9:
      cli->markdown = v;
      return 1;
    case 7:
      if (strcmp(v, "all") && strcmp(v, "claimed"))
        return usage(err, len, "--baseline-check: expected all or claimed, got '%s'", v);
      cli->baseline_check_all = !strcmp(v, "all");
      return 1;
    default:
      if (!*v) return usage(err, len, "--baseline-dir needs a directory%s", "");
      cli->baseline_dir = v;
      return 1;
    }
  }
  return 0;
}

/* See cli.h. */
int perf__options_parse(int argc, char **argv, perf__cli *cli, char *err,
                    size_t len)
{
  *cli = (perf__cli){.timeout_s = 60, .budget_s = 2, .seed = 1, .repeat = 1, .device_label = -1,
                     .worker_in = -1, .worker_out = -1,
                     .baseline_dir = "baselines"};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (flag(a, "--help", &cli->help) || flag(a, "-h", &cli->help) ||
        flag(a, "--list", &cli->list) || flag(a, "--verbose", &cli->verbose) ||
        flag(a, "-v", &cli->verbose) ||
        flag(a, "--require-gpu", &cli->require_gpu) ||
        flag(a, "--isolate", &cli->isolate) ||
        flag(a, "--allow-no-sync-check", &cli->allow_no_sync_check) ||
        flag(a, "--print-baseline-file", &cli->print_baseline_file) ||
        flag(a, "--update-baselines", &cli->update_baselines) ||
        flag(a, "--force", &cli->force) ||
        flag(a, "--strict-baselines", &cli->strict_baselines) ||
        flag(a, "--strict-improvements", &cli->strict_improvements) ||
        flag(a, "--tap", &cli->tap) || flag(a, "--shuffle", &cli->shuffle))
      continue;
    if (!strncmp(a, "--merge=", 8)) { /* the rest of the line: its inputs */
      cli->merge = a + 8;
      cli->merge_in = argv + i + 1;
      cli->merge_n = argc - i - 1;
      if (!*cli->merge) return usage(err, len, "--merge needs an output file%s", "");
      break;
    }
    int r = valued(argc, argv, &i, cli, err, len);
    if (r < 0) return r;
    if (r == 0)
      return usage(err, len, "unknown argument '%s' (see --help)", a);
  }
  if (cli->devices && (cli->tap || cli->update_baselines))
    return usage(err, len, "--devices runs one report per GPU: it does not combine with "
                 "--tap or --update-baselines%s", "");
  if (cli->update_baselines && (cli->repeat > 1 || cli->shuffle))
    return usage(err, len, "--update-baselines runs its own 3 repeats: drop "
                 "--repeat and --shuffle%s", "");
  return 0;
}
