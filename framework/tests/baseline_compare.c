/* baseline_compare.c — --compare-baselines: two GPUs' files compared without a GPU. */
/* The hardware move's tables, in perfgate-baselines and perftest alike, with
 * their Markdown and their exit codes. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "selftest.h"

#define FIXTURES "framework/tests/fixtures/hwmove"

/* Runs build/perfgate-baselines with args; its exit code, and its stdout
 * and stderr together in *out (malloc'd). */
static int tool(const char *args, char **out)
{
  char tmp[] = "/tmp/perfgate-compare-out-XXXXXX", cmd[2000];
  int fd = mkstemp(tmp);
  ST_CHECK(fd >= 0);
  close(fd);
  snprintf(cmd, sizeof cmd, "%s/perfgate-baselines %s > %s 2>&1", st_build_dir(), args, tmp);
  int rc = st_shell(cmd);
  *out = st_slurp(tmp);
  if (!*out) *out = strdup("");
  unlink(tmp);
  return rc;
}

/* B's file against the fixtures' directory: a table from A and one from C
 * (name order), the host's file and B's own not compared, exit 0 although
 * a change is unexpected (the tables inform a review); --markdown writes
 * both tables; perftest prints the same tables, running no test. */
ST_TEST(baseline_compare_prints_each_other_gpus_table)
{
  char dir[] = "/tmp/perfgate-compare-XXXXXX", args[600], *out;
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(args, sizeof args, "--baseline-dir=" FIXTURES " --compare-baselines=" FIXTURES
           "/test-gpu-b.yaml --markdown=%s/move.md", dir);
  int rc = tool(args, &out);
  ST_CHECKF(rc == 0, "%d: %s", rc, out);
  ST_EQ(st_count(out, "\nhardware move: from "), 2);
  ST_CHECKF(strstr(out, "hardware move: from Test GPU A (" FIXTURES "/test-gpu-a.yaml) to Test GPU "
                        "B (" FIXTURES "/test-gpu-b.yaml)") &&
                strstr(out, "hardware move: from Test GPU C (") &&
                strstr(out, "Test GPU A (") < strstr(out, "Test GPU C ("), "%s", out);
  ST_CHECKF(strstr(out, "1 unexpected change of 5 predicted workloads") && !strstr(out, "Test CPU"),
            "%s", out);
  char md[700];
  snprintf(md, sizeof md, "%s/move.md", dir);
  char *text = st_slurp(md);
  ST_CHECKF(text && st_count(text, "### Hardware move: ") == 2 &&
                strstr(text, "### Hardware move: Test GPU C → Test GPU B"), "%s", text ? text : "");
  free(text);
  st_run r;
  snprintf(args, sizeof args, "--baseline-dir=" FIXTURES " --compare-baselines=" FIXTURES
           "/test-gpu-b.yaml");
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 0 && strstr(r.out, out) == r.out && !strstr(r.out, "passed"), "%d: %s",
            r.status, r.out);
  st_run_free(&r);
  free(out);
  st_rmtree(dir);
}

/* Another GPU's file that is malformed is named with its path and
 * position and gets no table; the others' tables are printed; exit 2. */
ST_TEST(baseline_compare_names_a_malformed_file)
{
  char dir[] = "/tmp/perfgate-compare-XXXXXX", cmd[600], *out;
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(cmd, sizeof cmd, "cp " FIXTURES "/test-gpu-[ab].yaml %s/ && printf 'schema: 2\\nentries: "
           "7\\n' > %s/broken.yaml", dir, dir);
  ST_EQ(st_shell(cmd), 0);
  snprintf(cmd, sizeof cmd, "--baseline-dir=%s --compare-baselines=%s/test-gpu-b.yaml", dir, dir);
  int rc = tool(cmd, &out);
  char bad[300];
  snprintf(bad, sizeof bad, "perfgate-baselines: --compare-baselines: %s/broken.yaml:", dir);
  ST_CHECKF(rc == 2 && strstr(out, bad) && strstr(out, ": no hardware move from it\n") &&
                st_count(out, "\nhardware move: from Test GPU A") == 1, "%d: %s", rc, out);
  free(out);
  st_rmtree(dir);
}

/* What has nothing to compare, or cannot be done, is exit 2 with a line
 * naming why: a host's file, a directory without another GPU's file, a
 * file that does not exist, --markdown where it cannot be written, and
 * options that do not belong with it. */
ST_TEST(baseline_compare_refuses_what_it_cannot_compare)
{
  static const struct {
    const char *args, *says;
  } cases[] = {
      {"--baseline-dir=" FIXTURES " --compare-baselines=" FIXTURES "/test-cpu-4-cpus.yaml",
       "--compare-baselines: " FIXTURES "/test-cpu-4-cpus.yaml is a host's baseline file (Test CPU, 4 "
       "CPUs, 16.0 GiB): the hardware move compares GPUs' files"},
      {"--baseline-dir=framework/tests/fixtures/traces --compare-baselines=" FIXTURES "/test-gpu-a.yaml",
       "--compare-baselines: no other GPU's baseline file in 'framework/tests/fixtures/traces' to "
       "compare " FIXTURES "/test-gpu-a.yaml with"},
      {"--compare-baselines=" FIXTURES "/nothing.yaml",
       "--compare-baselines: " FIXTURES "/nothing.yaml: No such file or directory"},
      {"--baseline-dir=" FIXTURES " --compare-baselines=" FIXTURES "/test-gpu-a.yaml "
       "--markdown=/nonexistent/dir/m.md", "cannot write --markdown=/nonexistent/dir/m.md"},
      {"--markdown=m.md", "--markdown writes the tables of --compare-baselines=FILE"},
      {"--compare-baselines=", "--compare-baselines needs a GPU's baseline file"},
      {"--compare-baselines=a.yaml --check-baselines", "two modes"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *out;
    int rc = tool(cases[i].args, &out);
    ST_CHECKF(rc == 2 && strstr(out, cases[i].says), "%s: %d: %s", cases[i].args, rc, out);
    free(out);
  }
  st_run r;
  st_exec(&r, "", "--compare-baselines=" FIXTURES "/test-gpu-a.yaml --filter=x");
  ST_CHECKF(r.status == 2 && strstr(r.out, "--compare-baselines runs no test: --filter is an option "
                                           "of a run"), "%d: %s", r.status, r.out);
  st_run_free(&r);
}

/* An update that writes only this host's file beside GPUs' files (the
 * fixture's host work, no GPU here) compares nothing: a host's file is
 * no hardware move, in its output or its --markdown report. */
ST_TEST(baseline_compare_not_after_a_host_files_update)
{
  char dir[] = "/tmp/perfgate-compare-XXXXXX", cmd[600], path[600], line[600];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(cmd, sizeof cmd, "cp " FIXTURES "/test-gpu-[ab].yaml %s/", dir);
  ST_EQ(st_shell(cmd), 0);
  st_host_baseline_file(dir, path, sizeof path);
  st_run r;
  snprintf(cmd, sizeof cmd, "--color=never --baseline-dir=%s --update-baselines --accept-wide "
           "--filter=bl.host_work --markdown=%s/r.md", dir, dir);
  st_exec(&r, "", cmd);
  ST_CHECKF(r.status == 0 && st_line_with(&r, "baselines: wrote", path, line, sizeof line) &&
                !strstr(r.out, "hardware move"), "%d: %s", r.status, r.out);
  st_run_free(&r);
  snprintf(path, sizeof path, "%s/r.md", dir);
  char *md = st_slurp(path);
  ST_CHECKF(md && strstr(md, "## perfgate: ") && !strstr(md, "Hardware move"), "%s", md ? md : "");
  free(md);
  st_rmtree(dir);
}
