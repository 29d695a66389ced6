/* charts.c — sweeps end to end: claims per point, crossovers, SVG charts and the HTML report. */
/* The charts are checked with xmllint, the report in headless chromium. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "selftest.h"

/* The sweep fixtures (known curves) and a plain failing claim. */
#define SWEEPS "--filter='sweep.*:sweep_misuse.*:host.four_x_work_is_not_8x_faster' --budget=0.3"

/* Runs the sweep fixtures with extra options. */
static void run_sweeps(st_run *r, const char *opts)
{
  char args[1024];
  snprintf(args, sizeof args, SWEEPS " %s", opts);
  st_exec(r, "", args);
}

/* 1 when page h counts the run as its console's last line does: "N passed,
 * N failed, N skipped" (the sweep fixtures' host-clock verdicts may vary on
 * a loaded machine; the six misuse ERRORs never do). */
static int counts_as_console(const char *h, const st_run *r)
{
  char last[256], want[400];
  snprintf(want, sizeof want, "%s</b> (6 of the failed are errors) of 11 tests",
           st_last_line(r, last, sizeof last));
  return h && strstr(h, want) != NULL;
}

ST_TEST(sweep_claims_are_made_per_point_and_crossovers_decided)
{
  char dir[] = "/tmp/perfgate-sweep-XXXXXX", opts[400], path[300], line[2048];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/r.json", dir);
  snprintf(opts, sizeof opts, "--json=%s", path);
  st_run r;
  run_sweeps(&r, opts);
  ST_EQ(r.status, 1);
  ST_STR(st_outcome(&r, "sweep.flat_overtakes_growing_inside_range", line, sizeof line), "PASS");
  ST_STR(st_outcome(&r, "sweep.values_in_order", line, sizeof line), "PASS");
  ST_STR(st_outcome(&r, "sweep.crossover_below_range_fails", line, sizeof line), "FAIL");
  ST_CHECK(strstr(line, "flat is already faster at n=256, so it turns below 512") != NULL);
  ST_STR(st_outcome(&r, "sweep.never_turning_fails", line, sizeof line), "FAIL");
  ST_CHECK(strstr(line, "grows is still slower at n=64, so it turns above 64") != NULL);
  /* Per point: the claim names its point; the crossover gives its bracket
   * and estimate (the true crossover is at n = 64). */
  ST_CHECK(st_line_with(&r, "FASTER(quarter, dear, 2) at", "[n=16]: PASS", line, sizeof line));
  ST_CHECK(st_line_with(&r, "[n=4]: flat slower: flat", "speedup", line, sizeof line));
  ST_CHECK(st_line_with(&r, "[n=1024]: flat faster", NULL, line, sizeof line));
  const char *d = st_line_with(&r, "CROSSOVER(cheap, dear, n, 16, 256) at", ": PASS: flat is slower "
                               "than grows up to n=", line, sizeof line);
  ST_CHECK(d != NULL);
  const char *e = d ? strstr(line, "estimated crossover n=") : NULL;
  double est = e ? atof(e + strlen("estimated crossover n=")) : 0;
  ST_CHECKF(est > 32 && est < 128, "estimate %g in (32, 128): %s", est, line);
  /* Misuse is an ERROR naming the problem. */
  ST_STR(st_outcome(&r, "sweep_misuse.crossover_outside_a_sweep", line, sizeof line), "ERROR");
  ST_CHECK(strstr(line, "must be inside a PERF_SWEEP body") != NULL);
  ST_STR(st_outcome(&r, "sweep_misuse.nested", line, sizeof line), "ERROR");
  ST_CHECK(strstr(line, "sweeps cannot nest") != NULL);
  ST_STR(st_outcome(&r, "sweep_misuse.left_by_return", line, sizeof line), "ERROR");
  ST_CHECK(strstr(line, "PERF_SWEEP was left early") != NULL);
  ST_STR(st_outcome(&r, "sweep_misuse.not_the_sweep_variable", line, sizeof line), "ERROR");
  ST_CHECK(strstr(line, "other is 99 but the sweep's point is n=1") != NULL);
  ST_STR(st_outcome(&r, "sweep_misuse.no_power_of_two", line, sizeof line), "ERROR");
  ST_STR(st_outcome(&r, "sweep_misuse.negative_tie_margin", line, sizeof line), "ERROR");
  ST_CHECK(strstr(line, "the tie margin must be in [0, 1)") != NULL);
  /* The JSON: per-point records carry their point; the crossover record
   * its points, bracket and estimate. */
  char *j = st_slurp(path);
  ST_CHECK(j && strstr(j, "\"sweep\": {\"param\": \"n\", \"value\": 16, \"point\": 2, \"points\": 9}"));
  ST_CHECK(j && strstr(j, "\"kind\": \"CROSSOVER\", \"clock\": \"wall\", \"param\": \"n\""));
  ST_CHECK(j && strstr(j, "\"estimate\": "));
  ST_CHECK(j && strstr(j, "{\"x\": 4, \"side\": \"slower\", \"kind\": \"CROSSOVER_POINT\""));
  ST_CHECK(j && strstr(j, "\"median_interval_s\": ["));
  /* Each median lies in its own interval (both come from the rounds). */
  int medians = 0, inside = 0;
  for (const char *p = j; p && (p = strstr(p, "\"median_s\": ")) != NULL; p++) {
    double m, lo, hi;
    if (sscanf(p, "\"median_s\": %lf, \"median_interval_s\": [%lf, %lf]", &m, &lo, &hi) != 3)
      continue;
    medians++;
    inside += lo <= m && m <= hi;
  }
  ST_CHECKF(medians > 50 && inside == medians, "%d of %d medians inside", inside, medians);
  free(j);
  st_run_free(&r);
  st_rmtree(dir);
}

/* The names of the .svg files in dir, each followed by '\n'. */
static void svg_names(const char *dir, char *out, size_t len)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  out[0] = '\0';
  while (d && (e = readdir(d)) != NULL)
    if (strstr(e->d_name, ".svg"))
      snprintf(out + strlen(out), len - strlen(out), "%s\n", e->d_name);
  if (d) closedir(d);
}

ST_TEST(plots_are_well_formed_svg_with_their_parts)
{
  char dir[] = "/tmp/perfgate-plots-XXXXXX", opts[400], pdir[300], names[4096], cmd[1200];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(pdir, sizeof pdir, "%s/charts", dir); /* created by the run */
  snprintf(opts, sizeof opts, "--plots=%s", pdir);
  st_run r;
  run_sweeps(&r, opts);
  ST_EQ(r.status, 1);
  svg_names(pdir, names, sizeof names);
  static const char *want[] = {
      "sweep.flat_overtakes_growing_inside_range--time-n.svg",
      "sweep.flat_overtakes_growing_inside_range--crossover-cheap-dear.svg",
      "sweep.flat_overtakes_growing_inside_range--faster-quarter-dear.svg",
      "sweep.crossover_below_range_fails--crossover-cheap-dear.svg",
      "host.four_x_work_is_not_8x_faster--claims.svg"};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++)
    ST_CHECKF(strstr(names, want[i]) != NULL, "%s in:\n%s", want[i], names);
  /* Every chart is well-formed XML (xmllint, a prerequisite of make test). */
  int files = st_count(names, ".svg\n");
  ST_EQ(files, 8);
  snprintf(cmd, sizeof cmd, "cd %s && xmllint --noout *.svg", pdir);
  ST_CHECKF(st_shell(cmd) == 0, "%s", cmd);
  /* The time chart: three workloads, log axes, bands; the crossover chart:
   * the range, the line at 1 and the estimate. */
  char path[600];
  snprintf(path, sizeof path, "%s/%s", pdir, want[0]);
  char *t = st_slurp(path);
  ST_EQ(t ? st_count(t, "<polyline class=\"series\"") : -1, 3);
  ST_EQ(t ? st_count(t, "<polygon class=\"band\"") : -1, 3);
  ST_CHECK(t && strstr(t, ">grows_quarter (wall)</text>") && strstr(t, ">1.000 ms</text>"));
  ST_CHECK(t && strncmp(t, "<?xml version=\"1.0\"", 19) == 0);
  free(t);
  snprintf(path, sizeof path, "%s/%s", pdir, want[1]);
  t = st_slurp(path);
  ST_CHECK(t && strstr(t, "class=\"xband\"") && strstr(t, "class=\"threshold\"") &&
           strstr(t, "class=\"estimate\""));
  ST_EQ(t ? st_count(t, "<circle class=\"point\"") : -1, 9);
  free(t);
  /* A broken chart is caught by the same check. */
  snprintf(cmd, sizeof cmd, "printf '<svg><g></svg>' > %s/broken.svg && cd %s && "
           "! xmllint --noout broken.svg 2>/dev/null", pdir, pdir);
  ST_CHECK(st_shell(cmd) == 0);
  st_run_free(&r);
  st_rmtree(dir);
}

ST_TEST(html_report_lists_failures_first_and_fetches_nothing)
{
  char dir[] = "/tmp/perfgate-html-XXXXXX", opts[400], path[300];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/report.html", dir);
  snprintf(opts, sizeof opts, "--html=%s", path);
  st_run r;
  run_sweeps(&r, opts);
  ST_EQ(r.status, 1);
  char *h = st_slurp(path);
  ST_CHECK(h && strncmp(h, "<!DOCTYPE html>", 15) == 0 && strstr(h, "</html>\n"));
  ST_CHECKF(counts_as_console(h, &r), "%s", r.out);
  /* Failures first: the first section is a failure, the passes come after. */
  const char *first = h ? strstr(h, "<section id=\"t0\"") : NULL;
  ST_CHECK(first && (strncmp(strstr(first, "data-outcome="), "data-outcome=\"FAIL\"", 19) == 0 ||
                     strncmp(strstr(first, "data-outcome="), "data-outcome=\"ERROR\"", 20) == 0));
  const char *pass = h ? strstr(h, "data-outcome=\"PASS\"") : NULL;
  const char *fail = h ? strstr(h, "data-outcome=\"FAIL\"") : NULL;
  ST_CHECK(pass && fail && fail < pass);
  /* Charts inline, nothing fetched: no src, no link, no URL but the SVG
   * namespace. */
  /* 8 charts of the tests, and the headroom forest plot on top */
  ST_CHECK(h && st_count(h, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"perf-chart\"") == 9);
  ST_CHECK(h && strstr(h, "<figure id=\"headroom\">") &&
           strstr(h, "<figure id=\"headroom\">") < strstr(h, "<table id=\"tests\">"));
  ST_EQ(h ? st_count(h, "src=") + st_count(h, "<link") + st_count(h, "url(") : -1, 0);
  ST_EQ(h ? st_count(h, "http") : -1, h ? st_count(h, "http://www.w3.org/2000/svg") : 0);
  free(h);
  st_run_free(&r);
  st_rmtree(dir);
}

/* The first headless browser found, or NULL. */
static const char *browser(void)
{
  static const char *names[] = {"chromium", "chromium-browser", "google-chrome"};
  for (size_t i = 0; i < 3; i++) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "command -v %s > /dev/null 2>&1", names[i]);
    if (st_shell(cmd) == 0) return names[i];
  }
  return NULL;
}

/* Renders page in the browser: the DOM after load into dom, console
 * messages and errors into log, a screenshot into png. Returns the exit code. */
static int render(const char *b, const char *page, const char *dom, const char *log,
                  const char *png)
{
  char cmd[2400];
  snprintf(cmd, sizeof cmd, "cd /tmp && %s --headless --no-sandbox --disable-gpu "
           "--enable-logging=stderr --v=0 --virtual-time-budget=3000 --window-size=1200,3000 "
           "--dump-dom file://%s > %s 2> %s && %s --headless --no-sandbox --disable-gpu "
           "--window-size=1200,3000 --screenshot=%s file://%s > /dev/null 2>&1",
           b, page, dom, log, b, png, page);
  return st_shell(cmd);
}

ST_TEST(html_report_renders_in_headless_chromium)
{
  const char *b = browser();
  if (!b) {
    st_skip("no headless browser (chromium, chromium-browser or google-chrome) on PATH; "
            "install Debian's chromium to run this check");
    return;
  }
  char dir[] = "/tmp/perfgate-browser-XXXXXX", opts[400], page[300], dom[300], log[300],
       png[300];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(page, sizeof page, "%s/report.html", dir);
  snprintf(dom, sizeof dom, "%s/dom.html", dir);
  snprintf(log, sizeof log, "%s/console.log", dir);
  snprintf(png, sizeof png, "%s/shot.png", dir);
  snprintf(opts, sizeof opts, "--html=%s", page);
  st_run r;
  run_sweeps(&r, opts);
  ST_EQ(r.status, 1);
  ST_EQ(render(b, page, dom, log, png), 0);
  char *html = st_slurp(page), *d = st_slurp(dom), *l = st_slurp(log), *p = st_slurp(png);
  int charts = html ? st_count(html, "class=\"perf-chart\"") : -1;
  char want[64];
  snprintf(want, sizeof want, "data-charts-rendered=\"%d\"", charts);
  ST_EQ(charts, 9); /* the tests' 8 and the headroom forest plot */
  ST_CHECKF(d && strstr(d, want), "%s after load", want);
  ST_CHECKF(l && !strstr(l, ":CONSOLE"), "console messages: %s", l ? l : "(no log)");
  ST_CHECK(p && memcmp(p, "\x89PNG", 4) == 0);
  free(html), free(d), free(l), free(p);
  /* The console check sees an error when there is one. */
  FILE *f = fopen(page, "w");
  if (f) {
    fputs("<!DOCTYPE html><body><script>console.error('planted');</script></body>", f);
    fclose(f);
  }
  render(b, page, dom, log, png);
  l = st_slurp(log);
  ST_CHECK(l && strstr(l, ":CONSOLE") && strstr(l, "planted"));
  free(l);
  st_run_free(&r);
  st_rmtree(dir);
}

ST_TEST(plots_and_html_destinations_are_checked_before_running)
{
  char dir[] = "/tmp/perfgate-dest-XXXXXX", args[600], file[300];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(file, sizeof file, "%s/plain", dir);
  FILE *f = fopen(file, "w");
  if (f) fclose(f);
  st_run r;
  snprintf(args, sizeof args, "--filter=host.four_x_work_is_2x_faster --plots=%s", file);
  st_exec(&r, "", args);
  ST_EQ(r.status, 2);
  ST_CHECK(strstr(r.out, "--plots=") && strstr(r.out, "not a directory"));
  ST_CHECK(!strstr(r.out, "PASS "));
  st_run_free(&r);
  snprintf(args, sizeof args, "--filter=host.four_x_work_is_2x_faster --plots=%s/a/b", dir);
  st_exec(&r, "", args);
  ST_EQ(r.status, 2);
  ST_CHECK(strstr(r.out, "cannot create it: No such file or directory"));
  st_run_free(&r);
  snprintf(args, sizeof args, "--filter=host.four_x_work_is_2x_faster --html=%s/no/r.html", dir);
  st_exec(&r, "", args);
  ST_EQ(r.status, 2);
  ST_CHECK(strstr(r.out, "--html=") && strstr(r.out, "cannot write in"));
  st_run_free(&r);
  st_exec(&r, "", "--plots=");
  ST_EQ(r.status, 2);
  ST_CHECK(strstr(r.out, "--plots needs a directory"));
  st_run_free(&r);
  st_rmtree(dir);
}

ST_TEST(merge_draws_the_same_charts_from_the_json_reports)
{
  char dir[] = "/tmp/perfgate-mergeplots-XXXXXX", opts[600], a[4096], b[4096];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(opts, sizeof opts, "--json=%s/r.json --plots=%s/direct", dir, dir);
  st_run r;
  run_sweeps(&r, opts);
  ST_EQ(r.status, 1);
  st_run direct = r;
  snprintf(opts, sizeof opts, "--plots=%s/merged --html=%s/m.html --merge=%s/all.json %s/r.json",
           dir, dir, dir, dir);
  st_exec(&r, "", opts);
  ST_EQ(r.status, 1); /* the run's exit code */
  ST_CHECK(strstr(r.out, "merged 1 report into"));
  snprintf(opts, sizeof opts, "%s/direct", dir);
  svg_names(opts, a, sizeof a);
  snprintf(opts, sizeof opts, "%s/merged", dir);
  svg_names(opts, b, sizeof b);
  ST_EQ(st_count(a, ".svg\n"), 8);
  ST_EQ(st_count(b, ".svg\n"), 8);
  char *line = a;
  for (char *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
    *nl = '\0';
    ST_CHECKF(strstr(b, line) != NULL, "%s drawn from the merged report", line);
  }
  snprintf(opts, sizeof opts, "%s/m.html", dir);
  char *h = st_slurp(opts);
  ST_CHECK(h && !strstr(h, "warm-up")); /* verbose lines stay out, as in the direct page */
  ST_CHECK(h && st_count(h, "class=\"perf-chart\"") == 9 && counts_as_console(h, &direct));
  free(h);
  st_run_free(&direct);
  st_run_free(&r);
  st_rmtree(dir);
}

ST_TEST(sweep_baselines_are_named_with_their_point)
{
  char dir[] = "/tmp/perfgate-sweepbl-XXXXXX", args[600], cmd[800];
  ST_CHECK(mkdtemp(dir) != NULL);
  /* --force: the entries' names are the point, not whether every claim of
   * the host-clock fixture held on this (possibly loaded) machine. */
  snprintf(args, sizeof args, "--filter=sweep.flat_overtakes_growing_inside_range --budget=%s "
           "--update-baselines --force --accept-wide --baseline-dir=%s", st_slow() ? "2" : "0.2", dir);
  st_run r;
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 0 || r.status == 1, "%d: %s", r.status, r.out);
  snprintf(cmd, sizeof cmd, "cat %s/*.yaml > %s/all", dir, dir);
  st_shell(cmd);
  snprintf(cmd, sizeof cmd, "%s/all", dir);
  char *y = st_slurp(cmd);
  ST_CHECK(y && strstr(y, "workload: flat[n=16]") && strstr(y, "workload: grows[n=1024]"));
  ST_CHECK(y && strstr(y, "claim: FASTER(quarter, dear, 2) [n=16]") &&
           strstr(y, "claim: FASTER(quarter, dear, 2) [n=1024]"));
  free(y);
  st_run_free(&r);
  st_rmtree(dir);
}
