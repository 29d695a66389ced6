/* cli.c — the runner's command line as a user meets it. */
/* The help against the option table and docs/runner.md, refusals before
 * anything runs, the baseline directory of a new project, counts that
 * agree with their nouns. */
#define _GNU_SOURCE
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/options.h"
#include "util/units.h"
#include "report/result.h"
#include "supervisor/console.h"
#include "selftest.h"
#include "worker/claim/compare.h"
#include "worker/claim/measrec.h"

/* A fresh directory /tmp/perfgate-cli-XXXXXX into dir; the fixture is then
 * named by its absolute path, so that it can run there ("cd DIR && "). */
static void scratch(char *dir, size_t len)
{
  static char fixture[PATH_MAX];
  snprintf(dir, len, "/tmp/perfgate-cli-XXXXXX");
  ST_CHECK(mkdtemp(dir) != NULL);
  if (st_fixture[0] != '/' && realpath(st_fixture, fixture)) st_fixture = fixture;
}

/* Runs the fixture with args (printf-style, one %s: dir) inside dir. */
static void run_in(st_run *r, const char *dir, const char *fmt)
{
  char env[600], args[3000];
  snprintf(env, sizeof env, "cd '%s' && ", dir);
  snprintf(args, sizeof args, fmt, dir, dir, dir, dir);
  st_exec(r, env, args);
}

/* Entries in dir but . and .. (-1 when it cannot be read). */
static int entries(const char *dir)
{
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

/* 1 when nothing ran or was announced: no banner, no summary line. */
static int nothing_ran(const st_run *r)
{
  return !strstr(r->out, "perfgate: ") && !strstr(r->out, " passed, ");
}

/* ---- item 7: a project with no baselines/ yet -------------------------- */

/* A new project has no baselines/ directory: nothing is malformed, so
 * --check-baselines says so and exits 0, as for an empty directory; a run
 * and --print-baseline-file go on (the run's baseline checks are skipped
 * with the notice; --strict-baselines makes that exit 2). A --baseline-dir
 * named for --check-baselines that does not exist is a typo: exit 2. A
 * path that exists and is not a directory is exit 2 for every command that
 * reads it, before any test runs. */
ST_TEST(cli_baseline_directory_of_a_new_project)
{
  char dir[64], path[600];
  st_run r;
  scratch(dir, sizeof dir);
  run_in(&r, dir, "--check-baselines");
  ST_CHECKF(r.status == 0 && strstr(r.out, "no baseline directory 'baselines' yet"), "%d: %s",
            r.status, r.out);
  st_run_free(&r);
  run_in(&r, dir, "--print-baseline-file");
  ST_CHECKF(r.status == 0 && !strncmp(r.out, "baselines/", 10), "%d: %s", r.status, r.out);
  st_run_free(&r);
  run_in(&r, dir, "--filter=bl.host_work --budget=0.2");
  ST_CHECKF(r.status == 0 && strstr(r.out, "no baseline for this machine"), "%d: %s", r.status,
            r.out);
  st_run_free(&r);
  run_in(&r, dir, "--filter=bl.host_work --budget=0.2 --strict-baselines");
  ST_CHECKF(r.status == 2 && strstr(r.out, "--strict-baselines"), "%d: %s", r.status, r.out);
  st_run_free(&r);
  run_in(&r, dir, "--check-baselines --baseline-dir=baselnies");
  ST_CHECKF(r.status == 2 && strstr(r.out, "cannot read the directory 'baselnies'") &&
                strstr(r.out, "--baseline-dir"), "%d: %s", r.status, r.out);
  st_run_free(&r);
  ST_EQ(entries(dir), 0); /* none of them made the directory */

  /* baselines is a file: not a directory, for every command that reads it */
  snprintf(path, sizeof path, "%s/baselines", dir);
  FILE *f = fopen(path, "w");
  ST_CHECK(f && fclose(f) == 0);
  static const char *const cmds[] = {"--check-baselines", "--print-baseline-file",
                                     "--filter=host.truth", "--filter=host.truth --devices=0",
                                     "--trend --history=%s/h.db"};
  for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
    run_in(&r, dir, cmds[k]);
    ST_CHECKF(r.status == 2 && strstr(r.out, "cannot read the directory 'baselines': Not a "
                                             "directory") && nothing_ran(&r),
              "%s: %d: %s", cmds[k], r.status, r.out);
    st_run_free(&r);
  }
  ST_EQ(entries(dir), 1);
  if (geteuid() != 0) { /* root reads any directory */
    ST_EQ(unlink(path), 0);
    ST_EQ(mkdir(path, 0), 0);
    run_in(&r, dir, "--filter=host.truth");
    ST_CHECKF(r.status == 2 && strstr(r.out, "Permission denied") && nothing_ran(&r), "%d: %s",
              r.status, r.out);
    st_run_free(&r);
    chmod(path, 0700);
  }
  st_rmtree(dir);
}

/* A baselines link to nothing exists, so it is no new project's missing
 * directory: every command that reads or writes it is exit 2 before the
 * banner, naming the link and its target. --check-baselines said "no
 * baseline directory yet" (exit 0); --update-baselines printed the banner,
 * then "cannot create the baseline directory" (exit 2). */
ST_TEST(cli_baselines_link_to_nothing_is_refused_before_the_banner)
{
  char dir[64], path[600];
  st_run r;
  scratch(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/baselines", dir);
  ST_EQ(symlink("nowhere", path), 0);
  static const char *const cmds[] = {"--check-baselines", "--update-baselines --filter=host.truth",
                                     "--filter=host.truth", "--print-baseline-file"};
  for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
    run_in(&r, dir, cmds[k]);
    ST_CHECKF(r.status == 2 && strstr(r.out, "the baseline directory 'baselines' is a symbolic "
                                             "link to 'nowhere', which does not exist") &&
                  nothing_ran(&r),
              "%s: %d: %s", cmds[k], r.status, r.out);
    st_run_free(&r);
  }
  char target[16] = "";
  ST_CHECK(readlink(path, target, sizeof target - 1) == 7 && !strcmp(target, "nowhere"));
  ST_EQ(entries(dir), 1); /* nothing made */
  st_rmtree(dir);
}

/* ---- item 8: the help, the option table and docs/runner.md ------------ */

/* The runner table of docs/runner.md: its rows' first cells, one string. */
static char *runner_doc_options(void)
{
  char *text = st_slurp("docs/runner.md");
  ST_CHECKF(text != NULL, "docs/runner.md cannot be read (run from the repository's root)");
  if (!text) return NULL;
  const char *from = strstr(text, "# The runner");
  const char *to = from ? from + strlen(from) : NULL;
  size_t cap = strlen(text) + 1, used = 0;
  char *cells = calloc(1, cap);
  for (const char *p = from; cells && p && p < to; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
    if (!strncmp(p, "| `", 3)) { /* "| `--x=V`, `--y` |": the first cell */
      int n = (int)strcspn(p + 1, "|\n") + 1;
      used += (size_t)snprintf(cells + used, cap - used, "%.*s\n", n, p);
    }
  free(text);
  return cells;
}

/* The fixture's --help text (what a user reads), malloc'd. */
static char *help_text(void)
{
  st_run r;
  st_exec(&r, "", "--help");
  ST_EQ(r.status, 0);
  return r.out;
}

/* The help's row for option opt: its label line to the next label. */
static const char *help_row(const char *help, const char *opt, char *row, size_t len)
{
  char label[80];
  snprintf(label, sizeof label, "\n  %s", opt);
  const char *p = strstr(help, label);
  if (!p) return snprintf(row, len, "%s", ""), row;
  const char *next = strstr(p + 3, "\n  -"), *section = strstr(p + 3, "\n\n");
  if (!next || (section && section < next)) next = section ? section : p + strlen(p);
  snprintf(row, len, "%.*s", (int)(next - p), p);
  return row;
}

/* Every option of PERF__OPTIONS_MAP that --help lists is in docs/runner.md's
 * runner table, and every option there is one the table has; the help
 * shows every report with what produces it (the console's, the headroom
 * table of --repeat, each report file's option under "Reports", --trend's
 * and --merge's) and names the TAP version the --tap output declares. */
ST_TEST(cli_help_shows_every_report_and_agrees_with_the_runner_page)
{
  static const struct {
    const char *name, *help;
  } rows[] = {
#define PERF__X(name, shrt, kind, field, dflt, value, help) {name, help},
      PERF__OPTIONS_MAP(PERF__X)
#undef PERF__X
  };
  char *help = help_text(), *page = runner_doc_options(), row[2000], want[80];
  if (!help || !page) goto out;
  for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    if (!rows[k].help) continue;
    snprintf(want, sizeof want, "`%s", rows[k].name);
    const char *at = strstr(page, want);
    ST_CHECKF(at && strchr("=[`", at[strlen(want)]), "docs/runner.md's table lacks %s",
              rows[k].name);
    ST_CHECKF(*help_row(help, rows[k].name, row, sizeof row), "--help lacks %s", rows[k].name);
  }
  for (const char *p = page; (p = strstr(p, "`--")) != NULL; p++) {
    size_t n = strcspn(p + 1, "=[`");
    int known = 0;
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
      known |= rows[k].help && strlen(rows[k].name) == n && !strncmp(rows[k].name, p + 1, n);
    ST_CHECKF(known, "docs/runner.md's table has %.*s, which is no option", (int)n, p + 1);
  }
  /* the reports, and what produces each */
  ST_CHECKF(strstr(help, "console report") && strstr(help, "headroom"), "%s", help);
  ST_CHECKF(strstr(help_row(help, "--repeat", row, sizeof row), "headroom table"),
            "--repeat's row does not say it prints the headroom table: %s", row);
  const char *reports = strstr(help, "\nReports:\n"), *history = strstr(help, "\nHistory:\n");
  static const char *const files[][2] = {{"--junit", "JUnit"},   {"--markdown", "Markdown"},
                                         {"--json", "JSON"},     {"--html", "HTML"},
                                         {"--plots", "SVG"},     {"--tap", "TAP"}};
  for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
    snprintf(want, sizeof want, "\n  %s", files[k][0]);
    const char *at = strstr(help, want);
    ST_CHECKF(reports && at > reports && (!history || at < history) &&
                  strstr(help_row(help, files[k][0], row, sizeof row), files[k][1]),
              "%s is not a report under Reports: naming %s", files[k][0], files[k][1]);
  }
  ST_CHECK(strstr(help_row(help, "--trend", row, sizeof row), "change points"));
  ST_CHECK(strstr(help_row(help, "--merge", row, sizeof row), "--json"));
  /* the TAP version: the one the output declares */
  st_run r;
  st_exec(&r, "", "--tap --filter=host.truth");
  const char *tap = strncmp(r.out, "TAP version ", 12) ? strstr(r.out, "\nTAP version ") : r.out;
  char line[64] = "";
  if (tap) tap += *tap == '\n', snprintf(line, sizeof line, "%.*s", (int)strcspn(tap, "\n"), tap);
  ST_CHECKF(!strncmp(line, "TAP version ", 12) && strstr(help, line) && !strstr(help, "TAP 14"),
            "the TAP stream says '%s'; --help: %s", line, help_row(help, "--tap", row, sizeof row));
  st_run_free(&r);
out:
  free(help);
  free(page);
}

/* ---- item 10: refusals before anything runs ---------------------------- */

/* Two reports on one file would silently write one over the other: refused
 * before any test runs or anything is written (not even --plots' directory
 * or the history file), naming both options. The same file spelled two
 * ways (./x, a symlink and its target) is one file; with --devices each
 * GPU's name counts; a report may not replace --merge's input. Reports on
 * a stream (here our stderr) are written in place, one after the other:
 * allowed. */
ST_TEST(cli_two_outputs_on_one_file_are_refused_before_anything_runs)
{
  static const char *const bad[][3] = {
      {"--json=%s/x --junit=%s/x --filter=host.truth", "--json=", "--junit="},
      {"--markdown=%s/x --html=%s/./x --filter=host.truth", "--markdown=", "--html="},
      {"--json=%s/lnk --junit=%s/tgt --filter=host.truth", "--json=", "--junit="},
      {"--plots=%s/p --html=%s/p/ --filter=host.truth", "--plots=", "--html="},
      {"--history=%s/h.db --json=%s/h.db --filter=host.truth", "--history=", "--json="},
      {"--devices=0 --junit=%s/r.xml --json=%s/r.gpu0.xml --filter=host.truth", "--junit=",
       "GPU 0's file"},
      {"--history=%s/h.db --trend --html=%s/h.db", "--history=", "--html="},
      {"--html=%s/a.json --merge=%s/m.json %s/a.json", "--html=", "--merge's input"},
      {"--merge=%s/a.json %s/a.json", "--merge=", "--merge's input"},
  };
  char dir[64], path[600], target[600];
  st_run r;
  scratch(dir, sizeof dir);
  snprintf(target, sizeof target, "%s/tgt", dir);
  FILE *f = fopen(target, "w");
  ST_CHECK(f && fputs("keep", f) >= 0 && fclose(f) == 0);
  snprintf(path, sizeof path, "%s/lnk", dir);
  ST_EQ(symlink("tgt", path), 0);
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    run_in(&r, dir, bad[k][0]);
    ST_CHECKF(r.status == 2 && strstr(r.out, bad[k][1]) && strstr(r.out, bad[k][2]) &&
                  strstr(r.out, "are one file") && nothing_ran(&r),
              "%s: %d: %s", bad[k][0], r.status, r.out);
    ST_CHECKF(entries(dir) == 2, "%s left files behind", bad[k][0]);
    st_run_free(&r);
  }
  char *kept = st_slurp(target);
  ST_CHECK(kept && !strcmp(kept, "keep"));
  free(kept);
  /* different files are fine, and so are two reports on one stream */
  run_in(&r, dir, "--json=%s/r.json --junit=%s/r.xml --filter=host.truth");
  ST_CHECKF(r.status == 0 && entries(dir) == 4, "%d: %s", r.status, r.out);
  st_run_free(&r);
  st_exec(&r, "", "--json=/dev/stderr --junit=/dev/stderr --filter=host.truth");
  ST_CHECKF(r.status == 0 && strstr(r.out, "<testsuites") && strstr(r.out, "\"schema\""), "%d: %s",
            r.status, r.out);
  st_run_free(&r);
  st_rmtree(dir);
}

/* --repeat: one rule and one message for every bad count, and the device
 * list checked before the run's first line is printed. */
ST_TEST(cli_repeat_and_devices_are_refused_with_one_message_before_the_banner)
{
  static const char *const counts[] = {"-1", "0", "100001", "abc", "+5", "' 5'", "1e3", "''"};
  char args[200];
  st_run r;
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
    snprintf(args, sizeof args, "--repeat=%s --filter=host.truth", counts[k]);
    st_exec(&r, "", args);
    ST_CHECKF(r.status == 2 && strstr(r.out, "--repeat: expected 1..100000, got '") &&
                  nothing_ran(&r), "%s: %d: %s", counts[k], r.status, r.out);
    st_run_free(&r);
  }
  static const char *const devices[][2] = {{"abc", "expected all or a list like 0,1, got 'abc'"},
                                           {"0,0", "device 0 is listed twice"},
                                           {"0,,1", "expected all or a list"}};
  for (size_t k = 0; k < sizeof devices / sizeof devices[0]; k++) {
    snprintf(args, sizeof args, "--devices=%s --filter=host.truth", devices[k][0]);
    st_exec(&r, "", args);
    ST_CHECKF(r.status == 2 && strstr(r.out, devices[k][1]) && nothing_ran(&r), "%s: %d: %s",
              devices[k][0], r.status, r.out);
    st_run_free(&r);
  }
}

/* ---- the summary after --repeat ------------------------------------------- */

/* --repeat=2 of a test that crashes every time: the summary names it once,
 * with how many of its runs did not pass; the last line counts runs. It
 * said "2 tests did not pass" and named the test twice. */
ST_TEST(cli_repeat_names_each_failing_test_once)
{
  st_run r;
  char last[200];
  st_exec(&r, "", "--filter=crash.segfault:host.truth --repeat=2");
  ST_CHECKF(r.status == 1 && strstr(r.out, "\n1 test did not pass:\n") &&
                st_count(r.out, "  FAIL  crash.segfault: ") == 1 &&
                strstr(r.out, "  FAIL  crash.segfault: FAIL in 2 of 2 runs: crashed") &&
                !strcmp(st_last_line(&r, last, sizeof last), "2 passed, 2 failed, 0 skipped"),
            "%d: %s", r.status, r.out);
  st_run_free(&r);
}

/* The summary of runs with mixed outcomes: each test once, in the order of
 * its first run that did not pass, its outcomes counted when they differ,
 * the last one's reason; a test run once keeps its plain line. */
ST_TEST(cli_summary_counts_each_tests_runs)
{
  static const struct {
    const char *name;
    perf_outcome o;
    const char *reason;
  } runs[] = {{"s.a", PERF_OUTCOME_FAIL, "first"},         {"s.b", PERF_OUTCOME_PASS, ""},
              {"s.a", PERF_OUTCOME_INCONCLUSIVE, "second"}, {"s.b", PERF_OUTCOME_PASS, ""},
              {"s.a", PERF_OUTCOME_PASS, ""},               {"s.c", PERF_OUTCOME_SKIP, "no GPU"},
              {"s.d", PERF_OUTCOME_ERROR, "crashed"}};
  enum { N = sizeof runs / sizeof runs[0] };
  perf__result r[N];
  memset(r, 0, sizeof r);
  for (size_t k = 0; k < N; k++) {
    snprintf(r[k].name, sizeof r[k].name, "%s", runs[k].name);
    snprintf(r[k].reason, sizeof r[k].reason, "%s", runs[k].reason);
    r[k].outcome = runs[k].o;
  }
  char path[] = "/tmp/perfgate-summary-XXXXXX";
  int fd = mkstemp(path), out = dup(STDOUT_FILENO);
  ST_CHECK(fd >= 0 && out >= 0);
  fflush(stdout);
  dup2(fd, STDOUT_FILENO);
  perf__console_setup(PERF__COLOR_NEVER, 0);
  perf__console_summary(r, N);
  fflush(stdout);
  dup2(out, STDOUT_FILENO);
  close(out);
  close(fd);
  char *got = st_slurp(path);
  ST_STR(got, "\n2 tests did not pass:\n"
              "  INCONCLUSIVE s.a: did not pass in 2 of 3 runs (1 INCONCLUSIVE, 1 FAIL): second\n"
              "  ERROR s.d: crashed\n"
              "\n3 passed, 3 failed, 1 skipped\n");
  free(got);
  unlink(path);
}

/* ---- the program's one name in its messages ------------------------------ */

/* 1 when a line of out starts with prefix. */
static int starts_a_line(const char *out, const char *prefix)
{
  size_t n = strlen(prefix);
  for (const char *p = out; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
    if (!strncmp(p, prefix, n)) return 1;
  return 0;
}

/* Every message a user's binary prints starts with one name, its argv[0]'s
 * basename ("run-mytests: ..."), as GoogleTest's and most Unix tools' do:
 * an option error (it was argv[0] whole), a skip under --require-gpu, a
 * report that cannot be written after the run, --check-baselines, the
 * sharding variables (they were "perftest: ..."). */
ST_TEST(cli_every_message_names_the_program_by_its_basename)
{
  char dir[64], fifo[600], name[300], whole[PATH_MAX + 4];
  scratch(dir, sizeof dir);
  const char *slash = strrchr(st_fixture, '/');
  snprintf(name, sizeof name, "%s: ", slash ? slash + 1 : st_fixture);
  snprintf(whole, sizeof whole, "%s: ", st_fixture);
  snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  ST_EQ(mkfifo(fifo, 0600), 0);
  static const struct {
    const char *env, *args, *what;
  } cases[] = {
      {"", "--bogus", "unknown argument '--bogus'"},
      {"", "--filter=cuda.no_driver_skips_the_test --require-gpu",
       "--require-gpu: a test found no usable CUDA device"},
      {"", "--filter=host.truth --json=%s/fifo", "cannot write --json="},
      {"", "--check-baselines --baseline-dir=%s/nosuch", "--check-baselines: cannot read"},
      {"GTEST_TOTAL_SHARDS=0 GTEST_SHARD_INDEX=0 ", "--filter=host.truth",
       "GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX must"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char env[700], args[800], want[600];
    st_run r;
    snprintf(env, sizeof env, "cd '%s' && %s", dir, cases[k].env);
    snprintf(args, sizeof args, cases[k].args, dir);
    snprintf(want, sizeof want, "%s%s", name, cases[k].what);
    st_exec(&r, env, args);
    ST_CHECKF(r.status == 2 && starts_a_line(r.out, want) && !starts_a_line(r.out, "perftest: ") &&
                  (!slash || !starts_a_line(r.out, whole)),
              "%s: %d, want a line '%s...': %s", args, r.status, want, r.out);
    st_run_free(&r);
  }
  st_rmtree(dir);
}

/* each_source's walk: its callback, the callback's argument, files seen. */
static void (*each_fn)(const char *path, void *arg);
static void *each_arg;
static int each_files;

/* nftw's callback for each_source: fn on a .c file. */
static int each_visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
  (void)st, (void)ftw;
  size_t n = strlen(path);
  if (type == FTW_F && n > 2 && !strcmp(path + n - 2, ".c")) {
    each_fn(path, each_arg);
    each_files++;
  }
  return 0;
}

/* The runner's sources: calls fn(path, arg) for each .c file under
 * framework/src, every folder. Returns how many there were. */
static int each_source(void (*fn)(const char *path, void *arg), void *arg)
{
  each_fn = fn, each_arg = arg, each_files = 0;
  int r = nftw("framework/src", each_visit, 16, FTW_PHYS);
  ST_CHECKF(r == 0, "framework/src cannot be read (run from the repository's root)");
  return each_files;
}

/* Checks that path does not print "perftest:" for the program's name. */
static void spells_no_name(const char *path, void *arg)
{
  (void)arg;
  char *text = st_slurp(path);
  ST_CHECKF(text && !strstr(text, "\"perftest:"), "%s prints \"perftest:\": use perf__progname()",
            path);
  free(text);
}

/* No file of the runner spells the program's name in a message: each
 * prints perf__progname(). */
ST_TEST(cli_no_message_spells_the_program_name)
{
  ST_CHECK(each_source(spells_no_name, NULL) > 50);
}

/* ---- item 10: every count agrees with its noun ------------------------- */

/* "1 samples retaken" and its kind: the verdict line's disturbances, a
 * baseline file's entries, the HTML summary's tests, each with a count of 1
 * and of 2. */
ST_TEST(cli_counts_agree_with_their_nouns)
{
  char buf[400];
  perf__retake one = {.retaken = 1, .throttled_discarded = 1}, two = {.retaken = 2,
                                                                        .kept_disturbed = 1};
  perf__measrec_disturbed_text(&one, "power cap", buf, sizeof buf);
  ST_CHECKF(strstr(buf, "; 1 sample retaken and 0 kept although the host preempted it") &&
                strstr(buf, "; 1 sample discarded and 0 kept while the GPU was throttled "
                            "(power cap)"), "%s", buf);
  perf__measrec_disturbed_text(&two, "", buf, sizeof buf);
  ST_STR(buf, "; 2 samples retaken and 1 kept although the host preempted them");
  perf__measrec_disturbed_text(&(perf__retake){0}, "", buf, sizeof buf);
  ST_STR(buf, "");
  ST_STR(perf__units_noun(1, "entry", "entries"), "entry");
  ST_STR(perf__units_noun(0, "entry", "entries"), "entries");

  char dir[64], path[600];
  st_run r;
  scratch(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/one.yaml", dir);
  FILE *f = fopen(path, "w");
  if (f)
    fputs("schema: 1\nfingerprint:\n  name: x\nentries:\n  - test: s.t\n    workload: w\n"
          "    clock: wall\n    median_s: 1.0e-3\n    spread_s: 1.0e-6\n    samples: 8\n"
          "    tolerance: 0.05\n    recorded: 2026-01-01\nratios: []\n", f),
        fclose(f);
  run_in(&r, dir, "--check-baselines --baseline-dir=%s");
  ST_CHECKF(r.status == 0 && strstr(r.out, "one.yaml: 1 entry, 0 ratios (x)") &&
                strstr(r.out, "1 baseline file in"), "%d: %s", r.status, r.out);
  st_run_free(&r);
  snprintf(path, sizeof path, "%s/two.yaml", dir); /* work counts are named where there are any */
  f = fopen(path, "w");
  if (f)
    fputs("schema: 2\nfingerprint:\n  name: y\nentries: []\nratios: []\nwork:\n  - test: s.t\n"
          "    workload: w\n    instructions: 123456789012345\n    dram_bytes_read: 0\n"
          "    recorded: 2026-01-01\n", f),
        fclose(f);
  run_in(&r, dir, "--check-baselines --baseline-dir=%s");
  ST_CHECKF(r.status == 0 && strstr(r.out, "two.yaml: 0 entries, 0 ratios, 1 work count (y)"),
            "%d: %s", r.status, r.out);
  st_run_free(&r);
  ST_EQ(unlink(path), 0);
  run_in(&r, dir, "--filter=host.truth --html=%s/r.html");
  char *html = st_slurp((snprintf(path, sizeof path, "%s/r.html", dir), path));
  ST_CHECKF(r.status == 0 && html && strstr(html, "of 1 test;") &&
                strstr(html, "(0 of the failed are errors)"), "%d: %s", r.status, r.out);
  free(html);
  st_run_free(&r);
  st_rmtree(dir);
}

/* Scans one source file for "%d things" formats (a count printed before a
 * plural noun without perf__units_noun). Returns the offending lines. */
static int plural_formats(const char *path, const regex_t *re)
{
  /* counts that are never 1 (constants, or known > 1 where printed), and
   * words after a count that are no plural */
  static const char *const fine[] = {"%d calls", "%d streams", "%zu values", "all %d runs",
                                     "%llu times", "least %zu commits", "%zu commits tested",
                                     "last %zu runs", "most %zu characters",
                                     "%zu bytes, more than" /* > 120 */,
                                     "%ld rows%s (it holds one" /* > 1 */,
                                     "of %zu runs" /* a test run more than once */,
                                     "%d runs each, median" /* an update's: >= 5 */,
                                     "%d runs of every test" /* an update's: 5 */,
                                     "x 2 x %d bits" /* a memory bus: thousands */,
                                     "ranges (one expected)" /* printed when not one */,
                                     " series", " is", " exists", " puts",
                                     " does", " has", " appears", " was"};
  FILE *f = fopen(path, "r");
  char line[1024];
  int bad = 0, no = 0;
  while (f && fgets(line, sizeof line, f)) {
    regmatch_t m;
    no++;
    if (regexec(re, line, 1, &m, 0)) continue;
    char hit[128];
    snprintf(hit, sizeof hit, "%.*s", (int)(m.rm_eo - m.rm_so), line + m.rm_so);
    int ok = 0;
    for (size_t k = 0; k < sizeof fine / sizeof fine[0]; k++)
      ok |= strstr(line, fine[k]) && (fine[k][0] != ' ' || strstr(hit, fine[k]));
    bad += !ST_CHECKF(ok, "%s:%d: '%s' prints a count before a plural noun (1 samples): "
                      "use perf__units_noun", path, no, hit);
  }
  if (f) fclose(f);
  return bad;
}

/* each_source's callback: plural_formats with the regex in re. */
static void plurals_of(const char *path, void *re)
{
  plural_formats(path, re);
}

/* No format in the runner prints a count before a plural noun that stays
 * plural for 1 ("1 samples retaken"): each goes through perf__units_noun,
 * or its count cannot be 1. */
ST_TEST(cli_no_format_prints_one_with_a_plural)
{
  regex_t re;
  ST_EQ(regcomp(&re, "%[-+0-9.*]*(z|l|ll|j|h)?[dui] [a-zA-Z-]*s([^a-zA-Z_]|$)", REG_EXTENDED), 0);
  ST_CHECK(each_source(plurals_of, &re) > 50);
  regfree(&re);
}
