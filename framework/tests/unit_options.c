/* unit_options.c — command-line parsing: defaults, values, refusals, every option in the help. */
/* Bad arguments are refused with a message. */
#include <math.h>
#include <string.h>
#include <stdarg.h>

#include "cli/options.h"
#include "util/status.h"
#include "selftest.h"

static int parse(perf__options_cli *c, char *err, int n, ...);

#include <stdarg.h>
static int parse(perf__options_cli *c, char *err, int n, ...)
{
  char *argv[16] = {"perftest"};
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) argv[i + 1] = va_arg(ap, char *);
  va_end(ap);
  return perf__options_parse(n + 1, argv, c, err, 200);
}

ST_TEST(cli_defaults_and_values)
{
  perf__options_cli c;
  char err[200];
  ST_EQ(parse(&c, err, 0), 0);
  ST_NEAR(c.timeout_s, 60, 0);
  ST_NEAR(c.budget_s, 2, 0);
  ST_CHECK(c.filter == NULL && !c.list && !c.verbose && c.worker_in == -1);
  ST_EQ(parse(&c, err, 7, "--filter=a.*", "--timeout", "5", "--budget=0.5",
              "-v", "--color=never", "--list"), 0);
  ST_CHECK(c.filter && strcmp(c.filter, "a.*") == 0);
  ST_NEAR(c.timeout_s, 5, 0);
  ST_NEAR(c.budget_s, 0.5, 0);
  ST_CHECK(c.verbose && c.list && c.color == PERF__COLOR_NEVER);
  ST_EQ(parse(&c, err, 3, "--seed=123", "--require-gpu", "--allow-no-sync-check"), 0);
  ST_CHECK(c.allow_no_sync_check);
  ST_EQ(c.seed, 123);
  ST_CHECK(c.require_gpu);
  ST_CHECK(!strcmp(c.baseline_dir, "baselines"));
  ST_EQ(parse(&c, err, 2, "--baseline-dir=/tmp/b", "--print-baseline-file"), 0);
  ST_CHECK(!strcmp(c.baseline_dir, "/tmp/b") && c.print_baseline_file);
  ST_EQ(parse(&c, err, 1, "--baseline-dir="), PERF__EUSAGE);
  ST_EQ(parse(&c, err, 1, "--perf-worker=5,6"), 0);
  ST_CHECK(c.worker_in == 5 && c.worker_out == 6);
}

ST_TEST(cli_rejects_bad_arguments_with_a_message)
{
  perf__options_cli c;
  char err[200];
  const char *bad[][2] = {{"--bogus", "unknown argument '--bogus'"},
                          {"--timeout=abc", "--timeout: expected"},
                          {"--timeout=0", "--timeout: expected"},
                          {"--timeout=-3", "--timeout: expected"},
                          {"--budget=nan", "--budget: expected"},
                          {"--budget=1e9", "--budget: expected"},
                          {"--color=purple", "--color: expected"},
                          {"--seed=-1", "--seed: expected"},
                          {"--filterx", "unknown argument"},
                          {"--perf-worker=x", "--perf-worker"},
                          {"--timeout", "--timeout needs a value"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = '\0';
    int r = parse(&c, err, 1, bad[i][0]);
    ST_CHECKF(r == PERF__EUSAGE && strstr(err, bad[i][1]),
              "%s -> %d '%s'", bad[i][0], r, err);
  }
}

/* Whether help shows opt as an option label: after "\n  " (or ", " for a
 * short form) and before '=', ' ', ',' or the line's end. */
static int listed(const char *help, const char *opt)
{
  size_t n = strlen(opt);
  for (const char *p = help; (p = strstr(p, opt)) != NULL; p++) {
    int starts = (p - help >= 3 && !strncmp(p - 3, "\n  ", 3)) ||
                 (p - help >= 2 && !strncmp(p - 2, ", ", 2));
    if (starts && strchr("= ,[\n", p[n])) return 1;
  }
  return 0;
}

/* Every row of PERF__OPTIONS_MAP is in the help text (but the internal
 * --perf-worker), and every label the help shows is one the parser knows. */
ST_TEST(cli_help_lists_every_option)
{
  static const struct {
    const char *name, *shrt, *help;
  } rows[] = {
#define PERF__X(name, shrt, kind, field, dflt, value, help) {name, shrt, help},
      PERF__OPTIONS_MAP(PERF__X)
#undef PERF__X
  };
  char help[16384] = "";
  FILE *f = tmpfile();
  ST_CHECK(f != NULL);
  if (!f) return;
  perf__options_help(f, "perftest");
  rewind(f);
  help[fread(help, 1, sizeof help - 1, f)] = '\0';
  fclose(f);
  size_t shown = 0;
  for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    if (!rows[k].help) {
      ST_CHECKF(!strcmp(rows[k].name, "--perf-worker"), "%s is not in --help", rows[k].name);
      continue;
    }
    shown++;
    ST_CHECKF(listed(help, rows[k].name), "--help does not list %s", rows[k].name);
    ST_CHECKF(!*rows[k].shrt || listed(help, rows[k].shrt), "--help does not list %s",
              rows[k].shrt);
  }
  size_t labels = 0;
  for (const char *p = help; (p = strstr(p, "\n  -")) != NULL; p++, labels++) {
    char opt[64], err[200] = "";
    perf__options_cli c;
    snprintf(opt, sizeof opt, "%.*s", (int)strcspn(p + 3, " ,[\n"), p + 3);
    parse(&c, err, 1, opt);
    ST_CHECKF(!strstr(err, "unknown argument"), "--help lists %s: %s", opt, err);
  }
  ST_EQ(labels, shown);
}
