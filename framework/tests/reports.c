/* reports.c — the CI reports read back: JUnit against a schema, TAP 13, Markdown. */
/* JUnit is checked with xmllint. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perfgate.h"
#include "report/tally.h"
#include "selftest.h"

/* The fixture tests the reports are made of: passes, a decided failure, a
 * crash, a skip. */
#define MIX "--filter='host.four_x_work_is_2x_faster:host.aa_not_faster:crash.segfault:cuda.no_driver_skips_the_test'"

/* make test needs xmllint (libxml2-utils); without it, say so once per test. */
static int have_xmllint(void)
{
  return ST_CHECKF(st_shell("command -v xmllint > /dev/null") == 0,
                   "xmllint not found: install libxml2-utils (a prerequisite of make test)");
}

ST_TEST(report_junit_is_valid_against_the_schema)
{
  char dir[] = "/tmp/perfgate-junit-XXXXXX", args[1024], cmd[1024], path[512];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/r.xml", dir);
  snprintf(args, sizeof args, MIX " --junit=%s", path);
  st_run r;
  st_exec(&r, "", args);
  ST_EQ(r.status, 1);
  char *x = st_slurp(path);
  ST_CHECKF(x != NULL, "no %s: %s", path, r.out);
  if (x) {
    ST_CHECK(strstr(x, "<testsuites name=\"perfgate\" tests=\"") != NULL);
    ST_CHECK(strstr(x, "<testcase name=\"segfault\" classname=\"crash\" "
                       "file=\"framework/tests/fixtures/crash.c\" line=\"") != NULL);
    ST_CHECK(strstr(x, "<failure message=\"crashed: signal 11") != NULL);
    /* the failure message carries the numbers */
    const char *m = strstr(x, "<failure message=\"FASTER(a, a, 1.1) at framework/tests/fixtures/host.c:");
    const char *need = m ? strstr(m, "needs &gt;= 1.100x") : NULL;
    ST_CHECKF(need && strstr(m, ": FAIL: a ") && need < strchr(m, '>'), "%s", x);
    ST_CHECK(strstr(x, "speedup ") != NULL); /* the numbers in system-out */
    ST_CHECK(st_count(x, "<skipped message=\"no CUDA device") >= 1);
    ST_CHECK(strstr(x, "about to crash") != NULL); /* the test's own output */
  }
  snprintf(cmd, sizeof cmd, "xmllint --noout --schema framework/tests/junit.xsd %s 2>/dev/null", path);
  if (have_xmllint()) ST_CHECKF(st_shell(cmd) == 0, "%s", cmd);
  free(x);
  st_run_free(&r);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ST_EQ(st_shell(cmd), 0);
}

/* Validates xml against the schema; returns xmllint's exit code. */
static int validate(const char *xml)
{
  char path[] = "/tmp/perfgate-junit-doc-XXXXXX", cmd[512];
  int fd = mkstemp(path);
  if (fd < 0) return -1;
  ssize_t w = write(fd, xml, strlen(xml));
  close(fd);
  snprintf(cmd, sizeof cmd, "xmllint --noout --schema framework/tests/junit.xsd %s 2>/dev/null", path);
  int rc = w == (ssize_t)strlen(xml) ? st_shell(cmd) : -1;
  unlink(path);
  return rc;
}

#define DOC(testcase)                                                                      \
  "<?xml version=\"1.0\"?>\n<testsuites name=\"perfgate\" tests=\"1\" failures=\"0\" "     \
  "errors=\"0\" skipped=\"0\" time=\"0\" timestamp=\"x\"><testsuite name=\"s\" tests=\"1\" " \
  "failures=\"0\" errors=\"0\" skipped=\"0\" time=\"0\" timestamp=\"x\">" testcase          \
  "</testsuite></testsuites>\n"

ST_TEST(report_junit_schema_accepts_good_and_rejects_broken)
{
  /* The schema check can pass and can fail: the same testcase with and
   * without its name. */
  if (!have_xmllint()) return;
  ST_EQ(validate(DOC("<testcase name=\"t\" classname=\"s\" file=\"f\" line=\"1\" time=\"0\"/>")), 0);
  ST_CHECK(validate(DOC("<testcase classname=\"s\" file=\"f\" line=\"1\" time=\"0\"/>")) > 0);
}

ST_TEST(report_tap_stream_parses)
{
  char dir[] = "/tmp/perfgate-tap-XXXXXX", args[1024], path[512];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/out.tap", dir);
  /* stdout alone into the file; the console report goes to stderr. */
  snprintf(args, sizeof args, MIX " --tap >%s 2>%s/err; echo rc=$?", path, dir);
  st_run r;
  st_exec(&r, "", args);
  ST_CHECKF(strstr(r.out, "rc=1") != NULL, "%s", r.out);
  char *t = st_slurp(path);
  ST_CHECK(t != NULL);
  if (t) {
    ST_CHECKF(!strncmp(t, "TAP version 13\n1..", 18), "%s", t);
    int plan = atoi(t + 18), points = 0, not_ok = 0, skips = 0;
    for (char *l = t; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l) {
      points += !strncmp(l, "ok ", 3) || !strncmp(l, "not ok ", 7);
      not_ok += !strncmp(l, "not ok ", 7);
      skips += (!strncmp(l, "ok ", 3) && strstr(l, " # SKIP no CUDA device") &&
                strstr(l, " # SKIP no CUDA device") < strchr(l, '\n'));
    }
    ST_CHECKF(plan >= 4 && points == plan, "plan %d, points %d:\n%s", plan, points, t);
    ST_EQ(not_ok, 2); /* the decided failure and the crash */
    ST_CHECK(skips >= 1);
    ST_CHECK(strstr(t, "not ok 1 - host.four_x") == NULL);
    ST_CHECK(strstr(t, "  ---\n  message: \"crashed: signal 11") != NULL);
    ST_CHECK(strstr(t, "PASS  ") == NULL); /* no console lines on stdout */
  }
  free(t);
  st_run_free(&r);
  char cmd[2400];
  /* Perl's TAP::Harness (prove; 3.44 on Debian 12), where installed, reads
   * every test point and every YAML block */
  snprintf(cmd, sizeof cmd, "command -v prove >/dev/null || exit 0; prove -e cat %s > %s/prove 2>&1; "
           "grep -q 'Parse errors' %s/prove && exit 1; grep -q 'Tests: [0-9]* Failed: 2)' %s/prove",
           path, dir, dir, dir);
  ST_EQ(st_shell(cmd), 0);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ST_EQ(st_shell(cmd), 0);
}

ST_TEST(report_markdown_lists_failures_first)
{
  char dir[] = "/tmp/perfgate-md-XXXXXX", args[1024], path[512];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/summary.md", dir);
  snprintf(args, sizeof args, MIX " --markdown=%s", path);
  st_run r;
  st_exec(&r, "", args);
  char *m = st_slurp(path);
  ST_CHECK(m != NULL);
  if (m) {
    ST_CHECKF(strstr(m, "| result | test | wall | details |\n|---|---|---:|---|\n") != NULL, "%s", m);
    const char *fail = strstr(m, "| FAIL | `host.aa_not_faster`"),
               *pass = strstr(m, "| PASS | `host.four_x_work_is_2x_faster`");
    ST_CHECKF(fail && pass && fail < pass, "%s", m);
    ST_CHECK(strstr(m, "needs &gt;= 1.100x") != NULL); /* the failing numbers */
    struct stat st;
    ST_CHECK(stat(path, &st) == 0 && st.st_size < 1000 * 1000);
  }
  free(m);
  st_run_free(&r);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ST_EQ(st_shell(cmd), 0);
}

/* ---- Markdown that renders as written ------------------------------------ */

/* The HTML cmark-gfm (GitHub's own CommonMark, with its table extension,
 * raw HTML let through as GitHub lets most of it) makes of the Markdown
 * file md, malloc'd; NULL after a skip when cmark-gfm is not installed. */
static char *render_gfm(const char *md)
{
  if (st_shell("command -v cmark-gfm > /dev/null") != 0) {
    st_skip("cmark-gfm not found: the rendering is not checked (apt-get install cmark-gfm; "
            ".ci/run installs it); the escaped text is checked without it");
    return NULL;
  }
  char cmd[1200], out[600];
  snprintf(out, sizeof out, "%s.html", md);
  snprintf(cmd, sizeof cmd, "cmark-gfm -e table -e strikethrough -e autolink --unsafe '%s' > '%s'",
           md, out);
  ST_EQ(st_shell(cmd), 0);
  return st_slurp(out);
}

/* The text of the cell that starts at the "<td" at p, as a reader sees it
 * (tags dropped, entities decoded), into out[len]; *code says whether all
 * of it was in one <code>. Returns the end of the cell, or NULL. */
static const char *cell_text(const char *p, char *out, size_t len, int *code)
{
  static const char *const ent[][2] = {{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"},
                                       {"&quot;", "\""}, {"&#39;", "'"}};
  const char *end = strstr(p, "</td>");
  p = strchr(p, '>');
  if (!end || !p || p > end) return NULL;
  p++;
  *code = !strncmp(p, "<code>", 6) && !strncmp(end - 7, "</code>", 7);
  size_t n = 0;
  while (p < end && n + 1 < len) {
    if (*p == '<') {
      p = strchr(p, '>') + 1;
      continue;
    }
    size_t k = 0, m = sizeof ent / sizeof ent[0];
    while (k < m && strncmp(p, ent[k][0], strlen(ent[k][0]))) k++;
    out[n++] = k < m ? ent[k][1][0] : *p;
    p += k < m ? strlen(ent[k][0]) : 1;
  }
  out[n] = '\0';
  return end + 5;
}

/* What a Markdown or HTML reader would interpret, in names: each renders
 * as written in a table, as a code span (its newlines as spaces, as
 * CommonMark's own) and as text (trimmed, as a cell is). */
static const char *const hostile[] = {
    "b</details><h1>X</h1>", "a|b",        "a\\|b|",          "`tick",
    "x``y`",                 " sp ",       "*e* _u_ ~~s~~",   "&amp; &lt; &#60;",
    "$m$ [l](u) ![i](u)",    "l1\nl2\r",   "back\\slash\\",   "<script>alert(1)</script>",
    "http://x.y <http://z>", "\xc3\xbcn|\xc3\xaf`\\", "\\`\\*", "<!-- c -->"};

/* The one cell writer of every Markdown table (the summary, the headroom,
 * the history's comparison): a name renders as written, rendered by
 * cmark-gfm where it is installed; the escaped text is checked in any case.
 * It wrote names raw: "b</details><h1>X</h1>" closed the page's details and
 * made a heading, a backtick ended the code span. */
ST_TEST(report_markdown_cells_render_as_written)
{
  char dir[] = "/tmp/perfgate-mdcell-XXXXXX", path[600], text[400];
  ST_CHECK(mkdtemp(dir) != NULL);
  char *buf;
  size_t size;
  FILE *m = open_memstream(&buf, &size);
  perf__tally_md_cell(m, "b</details><h1>X</h1>|`*_[x]~$\\", SIZE_MAX);
  fputc('\n', m);
  perf__tally_md_code(m, "x``y`", SIZE_MAX);
  fputc('\n', m);
  perf__tally_md_cell(m, "\xc3\xbc\xc3\xbc", 3); /* never half a character */
  ST_EQ(fclose(m), 0);
  ST_STR(buf, "b&lt;/details&gt;&lt;h1&gt;X&lt;/h1&gt;\\|\\`\\*\\_\\[x\\]\\~\\$\\\\\n"
              "``` x``y` ```\n\xc3\xbc");
  free(buf);

  snprintf(path, sizeof path, "%s/t.md", dir);
  FILE *f = fopen(path, "w");
  ST_CHECK(f != NULL);
  if (!f) return;
  fputs("| code | text |\n|---|---|\n", f);
  size_t n = sizeof hostile / sizeof hostile[0];
  for (size_t k = 0; k < n; k++) {
    fputs("| ", f);
    perf__tally_md_code(f, hostile[k], SIZE_MAX);
    fputs(" | ", f);
    perf__tally_md_cell(f, hostile[k], SIZE_MAX);
    fputs(" |\n", f);
  }
  ST_EQ(fclose(f), 0);
  char *html = render_gfm(path);
  const char *p = html ? strstr(html, "<tbody>") : NULL;
  for (size_t k = 0; html && k < n; k++) {
    char want[200], got[400];
    snprintf(want, sizeof want, "%s", hostile[k]);
    for (char *c = want; *c; c++) *c = *c == '\n' || *c == '\r' ? ' ' : *c;
    int code = 0;
    p = p ? strstr(p, "<tr>") : NULL;
    p = p ? cell_text(strstr(p, "<td"), got, sizeof got, &code) : NULL;
    ST_CHECKF(p && code && !strcmp(got, want), "code span of '%s': '%s' in\n%s", hostile[k],
              p ? got : "(no cell)", html);
    p = p ? cell_text(strstr(p, "<td"), got, sizeof got, &code) : NULL;
    size_t lo = strspn(want, " "), hi = strlen(want);
    while (hi > lo && want[hi - 1] == ' ') hi--;
    snprintf(text, sizeof text, "%.*s", (int)(hi - lo), want + lo);
    ST_CHECKF(p && !code && !strcmp(got, text), "text of '%s': '%s' in\n%s", hostile[k],
              p ? got : "(no cell)", html);
    ST_CHECKF(p && strncmp(p, "\n<td", 4), "row %zu has more than two cells:\n%s", k, html);
  }
  free(html);
  st_rmtree(dir);
}

/* A failing claim whose workloads' names hold HTML, a pipe, backticks and
 * emphasis: the --markdown summary (its FAIL details), the headroom table
 * and the history's comparison show them as written; nothing in the file
 * is HTML but perfgate's own <details> and <br>. */
ST_TEST(report_markdown_shows_hostile_workload_names_as_written)
{
  char dir[] = "/tmp/perfgate-mdname-XXXXXX", args[1600], path[600];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/s.md", dir);
  for (int run = 0; run < 2; run++) {
    snprintf(args, sizeof args, "--filter='markdown.*' --budget=0.3 --markdown=%s "
             "--history=%s/h.db --commit=c%d", path, dir, run);
    st_run r;
    st_exec(&r, "", args);
    ST_CHECKF(r.status == 1, "%d: %s", r.status, r.out);
    st_run_free(&r);
  }
  char *md = st_slurp(path);
  static const char *const raw[] = {"<h1>", "</details><", "|*e*", "``b"};
  for (size_t k = 0; md && k < sizeof raw / sizeof raw[0]; k++)
    ST_CHECKF(!strstr(md, raw[k]), "'%s' raw in\n%s", raw[k], md);
  ST_CHECKF(md && st_count(md, "<details>") == 1 && st_count(md, "</details>") == 1, "%s",
            md ? md : "(none)");
  char *html = render_gfm(path);
  const char *name = "a</details><h1>X</h1>|*e*_u_&amp;$m$";
  char got[2000];
  int code = 0, seen = 0;
  for (const char *p = html; p && (p = strstr(p, "<td")) != NULL;) {
    p = cell_text(p, got, sizeof got, &code);
    seen += p && strstr(got, name) && strstr(got, "``b\\`");
  }
  /* the FAIL details, and the claim's row in the history's comparison */
  ST_CHECKF(!html || (seen >= 2 && !strstr(html, "<h1>")), "%d cells show the names:\n%s", seen,
            html);
  free(html);
  free(md);
  st_rmtree(dir);
}

ST_TEST(report_unwritable_file_is_a_usage_error_before_running)
{
  st_run r;
  char line[512];
  st_exec(&r, "", "--filter='host.four_x_work_is_2x_faster' --junit=/nonexistent-dir/r.xml");
  ST_EQ(r.status, 2);
  ST_CHECKF(strstr(r.out, "--junit=/nonexistent-dir/r.xml: cannot write in '/nonexistent-dir'") != NULL,
            "%s", r.out);
  ST_CHECK(st_outcome(&r, "host.four_x_work_is_2x_faster", line, sizeof line)[0] == '\0');
  st_run_free(&r);
}

ST_TEST(nvtx_ranges_name_the_test_each_warm_up_and_each_claim)
{
  char log[] = "/tmp/perfgate-nvtx-XXXXXX", env[1200];
  int fd = mkstemp(log);
  ST_CHECK(fd >= 0);
  close(fd);
  snprintf(env, sizeof env, "NVTX_INJECTION64_PATH=%.400s/libnvtxlog.so PERFGATE_NVTX_LOG=%s ",
           st_build_dir(), log);
  st_run r;
  st_exec(&r, env, "--filter='host.four_x_work_is_2x_faster'");
  ST_EQ(r.status, 0);
  char *l = st_slurp(log);
  ST_CHECK(l != NULL);
  if (l) {
    ST_CHECKF(strstr(l, "push host.four_x_work_is_2x_faster\n"
                        "push FASTER(a, b, 2): warm-up a\npop\n"
                        "push FASTER(a, b, 2): warm-up b\npop\n"
                        "push FASTER(a, b, 2): a vs b\npop\npop\n") != NULL,
              "%s", l);
    ST_EQ(st_count(l, "push "), st_count(l, "pop\n"));
  }
  free(l);
  unlink(log);
  st_run_free(&r);
}

/* The order in which the run reported the given tests ("PASS  name" lines),
 * as a string of their indices in names[]. */
static void order_of(const char *out, const char *const *names, int n, char *order, size_t len)
{
  size_t k = 0;
  for (const char *p = out; (p = strstr(p, "PASS  ")) != NULL && k + 1 < len; p++)
    for (int i = 0; i < n; i++)
      if (!strncmp(p + 6, names[i], strlen(names[i])) && p[6 + strlen(names[i])] == ' ')
        order[k++] = (char)('0' + i);
  order[k] = '\0';
}

#define SIX "--filter='host.four_x_work_is_2x_faster:host.aa_similar:crash.after_*'"

ST_TEST(runner_repeat_and_shuffle_follow_the_seed)
{
  static const char *const names[] = {"crash.after_segfault", "crash.after_abort",
                                      "crash.after_exit",     "crash.after_hang",
                                      "host.four_x_work_is_2x_faster", "host.aa_similar"};
  char plain[64], a[64], b[64], other[64];
  st_run r;
  st_exec(&r, "", SIX " --repeat=2");
  order_of(r.out, names, 6, plain, sizeof plain);
  ST_CHECKF(r.status == 0 && !strcmp(plain, "012345012345"), "%d %s: %s", r.status, plain, r.out);
  st_run_free(&r);
  st_exec(&r, "", SIX " --repeat=2 --shuffle --seed=7");
  order_of(r.out, names, 6, a, sizeof a);
  ST_CHECK(strstr(r.out, "perfgate: 6 tests, 2 times, shuffled (seed 7)") != NULL);
  st_run_free(&r);
  st_exec(&r, "", SIX " --repeat=2 --shuffle --seed=7");
  order_of(r.out, names, 6, b, sizeof b);
  st_run_free(&r);
  st_exec(&r, "", SIX " --repeat=2 --shuffle --seed=8");
  order_of(r.out, names, 6, other, sizeof other);
  st_run_free(&r);
  ST_CHECKF(strlen(a) == 12 && !strcmp(a, b), "same seed, same order: %s vs %s", a, b);
  ST_CHECKF(strcmp(a, plain) && strcmp(a, other), "seed 7 %s, seed 8 %s, unshuffled %s", a,
            other, plain);
  ST_CHECKF(strncmp(a, a + 6, 6), "each repeat is shuffled anew: %s", a);
}

ST_TEST(runner_rejects_bad_repeat_and_honours_shard_status_file)
{
  st_run r;
  st_exec(&r, "", "--repeat=0");
  ST_CHECKF(r.status == 2 && strstr(r.out, "--repeat: expected 1..100000, got '0'"), "%s", r.out);
  st_run_free(&r);
  st_exec(&r, "", "--update-baselines --repeat=2");
  ST_CHECKF(r.status == 2 && strstr(r.out, "drop --repeat and --shuffle"), "%s", r.out);
  st_run_free(&r);
  char path[] = "/tmp/perfgate-shard-status-XXXXXX", env[600];
  ST_CHECK(mkdtemp(path) != NULL);
  snprintf(env, sizeof env, "GTEST_SHARD_STATUS_FILE=%s/status ", path);
  st_exec(&r, env, "--filter='host.aa_similar'");
  char file[600];
  snprintf(file, sizeof file, "%s/status", path);
  ST_CHECK(r.status == 0 && access(file, F_OK) == 0);
  st_run_free(&r);
  unlink(file);
  rmdir(path);
  st_exec(&r, "GTEST_SHARD_STATUS_FILE=/nonexistent-dir/status ", "--filter='host.aa_similar'");
  ST_CHECKF(r.status == 2 && strstr(r.out, "GTEST_SHARD_STATUS_FILE=/nonexistent-dir/status:"),
            "%s", r.out);
  st_run_free(&r);
}

ST_TEST(runner_progress_and_colour_only_on_a_terminal)
{
  char cmd[1200];
  FILE *p;
  static char out[1 << 16];
  size_t n;
  /* script(1) gives the run a terminal. */
  snprintf(cmd, sizeof cmd,
           "TERM=xterm script -qec \"'%s' --filter='host.four_x_work_is_2x_faster:host.aa_similar'\" "
           "/dev/null 2>&1",
           st_fixture);
  p = popen(cmd, "r");
  ST_CHECK(p != NULL);
  n = p ? fread(out, 1, sizeof out - 1, p) : 0;
  out[n] = '\0';
  if (p) ST_EQ(pclose(p), 0);
  ST_CHECKF(strstr(out, "[1/2] host.four_x_work_is_2x_faster \u2026\r\033[K") &&
                strstr(out, "[2/2] host.aa_similar \u2026\r\033[K") &&
                strstr(out, "\033[32mPASS"),
            "%s", out);
  st_run r; /* a pipe: neither progress nor colour */
  st_exec(&r, "TERM=xterm ", "--filter='host.four_x_work_is_2x_faster:host.aa_similar'");
  ST_CHECKF(r.status == 0 && !strstr(r.out, "[1/2]") && !strchr(r.out, '\033'), "%s", r.out);
  st_run_free(&r);
  st_exec(&r, "", "--filter='host.aa_similar' --color=always");
  ST_CHECK(strstr(r.out, "\033[32mPASS") != NULL);
  st_run_free(&r);
}

#include "io/jsontree.h"

/* Parses path with python3's json module when there is one (strict JSON),
 * and always with perf__jsontree_read; returns the tree (or NULL). */
static perf__jsontree_node *parse_json(const char *path)
{
  char cmd[700], err[600];
  if (st_shell("command -v python3 >/dev/null 2>&1") == 0) {
    snprintf(cmd, sizeof cmd, "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' %s", path);
    ST_CHECKF(st_shell(cmd) == 0, "python3 cannot parse %s", path);
  }
  perf__jsontree_node *n = perf__jsontree_read(path, err, sizeof err);
  ST_CHECKF(n != NULL, "%s", err);
  return n;
}

/* The test named name in a report, or NULL. */
static const perf__jsontree_node *find_test(const perf__jsontree_node *report, const char *name)
{
  const perf__jsontree_node *tests = perf__jsontree_get(report, "tests");
  for (size_t i = 0; tests && i < tests->n; i++) {
    const perf__jsontree_node *n = perf__jsontree_get(tests->kids[i], "name");
    if (n && !strcmp(n->text, name)) return tests->kids[i];
  }
  return NULL;
}

ST_TEST(report_json_has_run_fingerprint_claims_and_every_sample)
{
  char dir[] = "/tmp/perfgate-json-XXXXXX", args[1024], path[512], cmd[600];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/r.json", dir);
  snprintf(args, sizeof args, MIX " --json=%s", path);
  st_run r;
  st_exec(&r, "", args);
  ST_EQ(r.status, 1);
  perf__jsontree_node *j = parse_json(path);
  if (j) {
    const perf__jsontree_node *run = perf__jsontree_get(j, "run"), *fp = perf__jsontree_get(j, "fingerprint");
    ST_EQ(perf__jsontree_num(perf__jsontree_get(run, "exit_code"), -1), 1);
    ST_CHECK(perf__jsontree_get(perf__jsontree_get(fp, "host"), "cpus") != NULL && perf__jsontree_get(fp, "gpu"));
    ST_EQ(perf__jsontree_num(perf__jsontree_get(perf__jsontree_get(j, "totals"), "failed"), -1), 2);
    const perf__jsontree_node *t = find_test(j, "host.aa_not_faster");
    const perf__jsontree_node *claims = perf__jsontree_get(t, "claims");
    ST_CHECK(claims && claims->n == 1);
    if (claims && claims->n == 1) {
      const perf__jsontree_node *c = claims->kids[0], *a = perf__jsontree_get(c, "a");
      ST_CHECK(!strcmp(perf__jsontree_get(c, "outcome")->text, "FAIL"));
      ST_CHECK(!strcmp(perf__jsontree_get(c, "clock")->text, "wall"));
      ST_CHECK(!strcmp(perf__jsontree_get(c, "kind")->text, "FASTER"));
      double rounds = perf__jsontree_num(perf__jsontree_get(c, "rounds"), 0);
      const perf__jsontree_node *s = perf__jsontree_get(a, "samples_s");
      /* two samples of each workload per ABBA round */
      ST_CHECKF(s && rounds >= 12 && s->n == (size_t)(2 * rounds), "%zu samples, %g rounds",
                s ? s->n : 0, rounds);
      ST_CHECK(s && s->n && perf__jsontree_num(s->kids[0], -1) > 0);
    }
    const perf__jsontree_node *crash = find_test(j, "crash.segfault");
    ST_CHECK(crash && !strcmp(perf__jsontree_get(crash, "outcome")->text, "FAIL") &&
             strstr(perf__jsontree_get(crash, "output")->text, "about to crash"));
    const perf__jsontree_node *skip = find_test(j, "cuda.no_driver_skips_the_test");
    ST_CHECK(skip && !strcmp(perf__jsontree_get(skip, "no_device")->text, "true"));
  }
  perf__jsontree_free(j);
  st_run_free(&r);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ST_EQ(st_shell(cmd), 0);
}

ST_TEST(report_merge_combines_shards_into_one_report_and_exit_code)
{
  char dir[] = "/tmp/perfgate-merge-XXXXXX", args[1200], cmd[1200];
  ST_CHECK(mkdtemp(dir) != NULL);
  st_run r;
  int passed = 0, failed = 0, skipped = 0; /* the shards' own counts, summed */
  for (int k = 0; k < 2; k++) {
    char env[100], last[256];
    int p = -1, f = -1, sk = -1;
    snprintf(env, sizeof env, "GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=%d ", k);
    snprintf(args, sizeof args, "--filter='host.four_x_*:host.aa_*' --json=%s/s%d.json", dir, k);
    st_exec(&r, env, args);
    ST_EQ(r.status, 1); /* each shard has a failing test */
    ST_CHECK(sscanf(st_last_line(&r, last, sizeof last), "%d passed, %d failed, %d skipped",
                    &p, &f, &sk) == 3);
    passed += p, failed += f, skipped += sk;
    st_run_free(&r);
  }
  ST_EQ(passed + failed + skipped, 5);
  /* The host-clock verdicts can vary on a loaded machine: the merge must
   * count what the shards counted, whatever that was. */
  char want[128];
  snprintf(want, sizeof want, "%d passed, %d failed, %d skipped; exit 1", passed, failed,
           skipped);
  snprintf(args, sizeof args, "--merge=%s/all.json %s/s0.json %s/s1.json", dir, dir, dir);
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 1 && strstr(r.out, "merged 2 reports") && strstr(r.out, want),
            "%d: %s", r.status, r.out);
  st_run_free(&r);
  snprintf(cmd, sizeof cmd, "%s/all.json", dir);
  perf__jsontree_node *j = parse_json(cmd);
  if (j) {
    ST_EQ(perf__jsontree_get(j, "tests")->n, 5);
    ST_EQ(perf__jsontree_num(perf__jsontree_get(perf__jsontree_get(j, "run"), "exit_code"), -1), 1);
    ST_EQ(perf__jsontree_get(perf__jsontree_get(j, "run"), "shards")->n, 2);
    ST_CHECK(find_test(j, "host.aa_similar") && find_test(j, "host.four_x_work_is_not_8x_faster"));
  }
  perf__jsontree_free(j);
  /* a missing shard, a duplicate, a malformed file: exit 2, named */
  snprintf(args, sizeof args, "--merge=%s/x.json %s/s0.json", dir, dir);
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 2 && strstr(r.out, "shard 1 of 2 is missing"), "%s", r.out);
  st_run_free(&r);
  snprintf(args, sizeof args, "--merge=%s/x.json %s/s1.json %s/s1.json", dir, dir, dir);
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 2 && strstr(r.out, "shard 1 appears twice"), "%s", r.out);
  st_run_free(&r);
  snprintf(cmd, sizeof cmd, "printf '{\"a\": [1,\\n' > %s/bad.json", dir);
  ST_EQ(st_shell(cmd), 0);
  snprintf(args, sizeof args, "--merge=%s/x.json %s/bad.json", dir, dir);
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 2 && strstr(r.out, "bad.json:2:1:"), "%s", r.out);
  snprintf(cmd, sizeof cmd, "%s/x.json", dir);
  ST_CHECK(access(cmd, F_OK) != 0); /* nothing half-written */
  st_run_free(&r);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ST_EQ(st_shell(cmd), 0);
}

/* The version, written once in perfgate.h: --version prints it, the --json
 * report and a merged one carry it, perfgate.pc declares it, and --merge
 * refuses shards that two perfgate versions wrote. */
ST_TEST(version_is_printed_reported_and_checked_by_merge)
{
  char want[64], dir[] = "/tmp/perfgate-version-XXXXXX", args[1200], cmd[1400];
  snprintf(want, sizeof want, "%d.%d.%d", PERF_VERSION_MAJOR, PERF_VERSION_MINOR,
           PERF_VERSION_PATCH);
  ST_STR(perf_version(), want);
  st_run r;
  st_exec(&r, "", "--version");
  char line[256];
  snprintf(cmd, sizeof cmd, "perfgate %s (built with CUDA runtime ", want);
  ST_CHECKF(r.status == 0 && !strncmp(r.out, cmd, strlen(cmd)), "%d: %s", r.status, r.out);
  st_run_free(&r);
  ST_CHECK(mkdtemp(dir) != NULL);
  for (int k = 0; k < 2; k++) { /* two shards: a.json and b0.json */
    char env[80];
    snprintf(env, sizeof env, "GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=%d ", k);
    snprintf(args, sizeof args, "--filter='host.four_x_*' --json=%s/%s.json", dir, k ? "b0" : "a");
    st_exec(&r, env, args);
    st_run_free(&r);
  }
  snprintf(cmd, sizeof cmd, "%s/a.json", dir);
  perf__jsontree_node *j = parse_json(cmd);
  const perf__jsontree_node *v = perf__jsontree_get(perf__jsontree_get(j, "run"), "perfgate");
  ST_CHECKF(v && v->type == PERF__J_STRING && !strcmp(v->text, want), "run.perfgate: %s",
            v ? v->text : "(none)");
  perf__jsontree_free(j);
  snprintf(args, sizeof args, "--merge=%s/m.json %s/a.json %s/b0.json", dir, dir, dir);
  st_exec(&r, "", args);
  st_run_free(&r);
  snprintf(cmd, sizeof cmd, "%s/m.json", dir);
  j = parse_json(cmd);
  v = perf__jsontree_get(perf__jsontree_get(j, "run"), "perfgate");
  ST_CHECKF(v && v->type == PERF__J_STRING && !strcmp(v->text, want), "merged run.perfgate: %s",
            v ? v->text : "(none)");
  perf__jsontree_free(j);
  /* another version's shard: refused, named, nothing written */
  snprintf(cmd, sizeof cmd,
           "sed 's/\\(\"perfgate\": \"\\)[0-9.]*/\\19.9.9/' %s/b0.json > %s/b.json && "
           "grep -q '\"perfgate\": \"9.9.9\"' %s/b.json", dir, dir, dir);
  ST_EQ(st_shell(cmd), 0);
  snprintf(args, sizeof args, "--merge=%s/x.json %s/a.json %s/b.json", dir, dir, dir);
  st_exec(&r, "", args);
  snprintf(cmd, sizeof cmd, "by perfgate %s and ", want);
  ST_CHECKF(r.status == 2 && strstr(r.out, cmd) && strstr(r.out, "by perfgate 9.9.9"), "%d: %s",
            r.status, r.out);
  snprintf(cmd, sizeof cmd, "%s/x.json", dir);
  ST_CHECK(access(cmd, F_OK) != 0);
  st_run_free(&r);
  /* perfgate.pc, as make install writes it */
  snprintf(cmd, sizeof cmd, "%s/perfgate.pc", st_build_dir());
  char *pc = st_slurp(cmd);
  snprintf(line, sizeof line, "\nVersion: %s\n", want);
  ST_CHECKF(pc && strstr(pc, line), "%s has no '%s'", cmd, want);
  free(pc);
  st_rmtree(dir);
}

ST_TEST(report_json_claim_records_say_what_held)
{
  char path[] = "/tmp/perfgate-truth-XXXXXX", args[600];
  int fd = mkstemp(path);
  ST_CHECK(fd >= 0);
  close(fd);
  snprintf(args, sizeof args, "--filter='host.truth' --json=%s", path);
  st_run r;
  st_exec(&r, "", args);
  ST_EQ(r.status, 0);
  perf__jsontree_node *j = parse_json(path);
  const perf__jsontree_node *claims = perf__jsontree_get(find_test(j, "host.truth"), "claims");
  ST_CHECK(claims && claims->n >= 1);
  for (size_t k = 0; claims && k < claims->n; k++) {
    const perf__jsontree_node *m = perf__jsontree_get(claims->kids[k], "message");
    ST_CHECKF(m && strstr(m->text, " holds") && !strstr(m->text, "is false") &&
                  !strcmp(perf__jsontree_get(claims->kids[k], "outcome")->text, "PASS"),
              "%s", m ? m->text : "(none)");
  }
  perf__jsontree_free(j);
  unlink(path);
  st_run_free(&r);
}

ST_TEST(runner_devices_runs_each_test_per_device_labelled_and_merged)
{
  char dir[] = "/tmp/perfgate-devices-XXXXXX", args[1200], path[600], cmd[700];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(args, sizeof args,
           "--devices=0,3 --filter='host.visible_devices:host.aa_not_faster' --json=%s/r.json "
           "--junit=%s/r.xml",
           dir, dir);
  st_run r;
  char line[512];
  /* Under CUDA_VISIBLE_DEVICES the listed ids are not checked against the
   * machine's GPUs: device 3 is then valid on any machine (with none, or
   * one, it has no GPU and its host tests run all the same). */
  st_exec(&r, "CUDA_VISIBLE_DEVICES=0,1,2,3 ", args);
  ST_EQ(r.status, 1); /* the worst of the two runs */
  ST_CHECK(strstr(r.out, "[gpu 0] PASS  host.visible_devices") &&
           strstr(r.out, "[gpu 3] PASS  host.visible_devices") &&
           strstr(r.out, "[gpu 3] FAIL  host.aa_not_faster"));
  ST_CHECK(!strcmp(st_last_line(&r, line, sizeof line), "2 passed, 2 failed, 0 skipped"));
  st_run_free(&r);
  snprintf(path, sizeof path, "%s/r.json", dir);
  perf__jsontree_node *j = parse_json(path);
  const perf__jsontree_node *tests = perf__jsontree_get(j, "tests");
  ST_CHECK(tests && tests->n == 4);
  int seen[2] = {0, 0};
  for (size_t k = 0; tests && k < tests->n; k++) {
    const perf__jsontree_node *t = tests->kids[k], *out = perf__jsontree_get(t, "output");
    double dev = perf__jsontree_num(perf__jsontree_get(t, "device"), -1);
    if (!strcmp(perf__jsontree_get(t, "name")->text, "host.visible_devices")) {
      /* each run saw only its own GPU */
      ST_CHECKF((dev == 0 && strstr(out->text, "visible=0")) ||
                    (dev == 3 && strstr(out->text, "visible=3")),
                "device %g: %s", dev, out->text);
      seen[dev == 3]++;
    }
  }
  ST_CHECK(seen[0] == 1 && seen[1] == 1);
  const perf__jsontree_node *devs = perf__jsontree_get(perf__jsontree_get(j, "run"), "devices");
  ST_CHECK(devs && devs->n == 2);
  perf__jsontree_free(j);
  snprintf(path, sizeof path, "%s/r.gpu3.xml", dir);
  char *x = st_slurp(path);
  ST_CHECK(x && strstr(x, "<testsuite name=\"host@gpu3\""));
  free(x);
  st_exec(&r, "", "--devices=0,0");
  ST_CHECKF(r.status == 2 && strstr(r.out, "device 0 is listed twice"), "%s", r.out);
  st_run_free(&r);
  st_exec(&r, "", "--devices=one");
  ST_CHECKF(r.status == 2 && strstr(r.out, "expected all or a list like 0,1, got 'one'"), "%s",
            r.out);
  st_run_free(&r);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ST_EQ(st_shell(cmd), 0);
}

/* --repeat: every ratio claim's headroom over its runs, in the console
 * (before the last line), the JSON, the Markdown summary and the HTML
 * page's forest plot; a single run has only the plot. */
ST_TEST(report_headroom_over_repeated_runs)
{
  char dir[] = "/tmp/perfgate-headroom-XXXXXX", args[1200], path[400];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(args, sizeof args, "--filter=host.four_x_work_is_2x_faster --repeat=3 "
           "--json=%s/r.json --markdown=%s/r.md --html=%s/r.html", dir, dir, dir);
  st_run r;
  char line[2048];
  st_exec(&r, "", args);
  /* the report, not the verdicts (a loaded machine may move those) */
  char last[256];
  const char *row = st_line_with(&r, "host.four_x_work_is_2x_faster: FASTER(a, b, 2) at", NULL,
                                 line, sizeof line);
  const char *at = row ? strstr(r.out, line) : NULL;
  st_last_line(&r, last, sizeof last);
  ST_CHECKF(at && strstr(r.out, "headroom of each ratio claim") < at && at < strstr(r.out, last),
            "%s", r.out);
  snprintf(path, sizeof path, "%s/r.json", dir);
  char *j = st_slurp(path);
  ST_CHECK(j && strstr(j, "\"headroom\": [") && strstr(j, "\"runs\": 3") &&
           strstr(j, "\"held_at\": "));
  free(j);
  snprintf(path, sizeof path, "%s/r.md", dir);
  char *m = st_slurp(path);
  ST_CHECK(m && strstr(m, "### Headroom over 3 runs"));
  free(m);
  snprintf(path, sizeof path, "%s/r.html", dir);
  char *h = st_slurp(path);
  ST_CHECK(h && strstr(h, "<figure id=\"headroom\">") && strstr(h, "over 3 runs"));
  free(h);
  st_run_free(&r);
  snprintf(args, sizeof args, "--filter=host.four_x_work_is_2x_faster --json=%s/one.json", dir);
  st_exec(&r, "", args);
  ST_CHECK(!strstr(r.out, "headroom of each ratio claim"));
  snprintf(path, sizeof path, "%s/one.json", dir);
  j = st_slurp(path);
  ST_CHECK(j && !strstr(j, "\"headroom\""));
  free(j);
  st_run_free(&r);
  st_rmtree(dir);
}
