/* throughput.c — declared work end to end: the rate beside the time, and the refusals. */
/* The rate shows in the console, --json and the history; the refusals are
 * the speed-of-light claims'. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history/connect.h"
#include "history/schema.h"
#include "history/store.h"
#include "selftest.h"

static int first_value(void *ctx, int n, const char *const *v)
{
  snprintf(ctx, 64, "%s", n > 0 && v[0] ? v[0] : "NULL");
  return 0;
}

/* What one SQL query's first row's first column says in the history at
 * path ("NULL" for a NULL, "" when no row). */
static void query(const char *path, const char *sql, char *out)
{
  perf__store *s = NULL;
  char err[600];
  out[0] = '\0';
  int rc = perf__connect_open(path, 0, &s, err, sizeof err);
  if (!rc) rc = perf__store_exec(s, &(perf__store_stmt){.sql = sql, .on_row = first_value, .ctx = out}, err,
                                 sizeof err);
  ST_CHECKF(rc == 0, "%s: %s", sql, err);
  if (s) perf__store_close(s);
}

/* Host workloads that declare their bytes (and b its fp64 flops): under
 * the verdict line each gets its rate with the interval and the clock,
 * whatever the verdict (a loaded runner may leave it undecided); --json
 * carries the work with the rates; the history records the work. */
ST_TEST(throughput_beside_the_time_in_every_record)
{
  char dir[] = "/tmp/perfgate-work-XXXXXX", args[600], line[2000], path[300], v[64];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(args, sizeof args, "--filter=work.host_throughput --budget=0.3 --json=%s/r.json "
           "--history=%s/h.db --commit=c1", dir, dir);
  st_run r;
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 0 || r.status == 1, "%s", r.out);
  ST_CHECKF(st_line_with(&r, "  a: ", "B/s [", line, sizeof line) &&
                strstr(line, "(wall clock)") && !strstr(line, "peak"),
            "%s", r.out);
  ST_CHECKF(st_line_with(&r, "  b: ", "FLOP/s [", line, sizeof line) && strstr(line, " fp64 "),
            "%s", r.out);
  snprintf(path, sizeof path, "%s/r.json", dir);
  char *json = st_slurp(path);
  ST_CHECKF(json && strstr(json, "\"work\": {\"bytes_read\": 1048576, \"bytes_written\": 0, "
                                 "\"flops\": 0, \"flop_type\": \"none\", \"bytes_per_s\": [") &&
                strstr(json, "\"flops\": 1000000, \"flop_type\": \"fp64\""),
            "%s", json ? json : "(no report)");
  free(json);
  snprintf(path, sizeof path, "%s/h.db", dir);
  query(path, "SELECT bytes_read FROM perfgate_workloads WHERE workload = 'a'", v);
  ST_STR(v, "1048576.0");
  query(path, "SELECT flops || ' ' || flop_type FROM perfgate_workloads WHERE workload = 'b'", v);
  ST_STR(v, "1000000.0 fp64");
  query(path, "SELECT coalesce(flop_type, 'NULL') FROM perfgate_workloads WHERE workload = 'a'", v);
  ST_STR(v, "NULL");
  st_run_free(&r);
  st_rmtree(dir);
}

/* A claim its workload cannot make is an ERROR naming what to declare. */
ST_TEST(throughput_speed_of_light_refusals_name_the_fix)
{
  st_run r;
  st_exec(&r, "", "--filter=work.bandwidth_without_bytes:work.flops_without_a_type:"
                  "work.share_above_one:work.negative_bytes --budget=0.2");
  ST_EQ(r.status, 1);
  st_expect(&r, "work.bandwidth_without_bytes", "ERROR",
            "BANDWIDTH(a, 0.8) at framework/tests/fixtures/work.c:24: workload 'a' declares no "
            ".bytes_read or .bytes_written");
  st_expect(&r, "work.flops_without_a_type", "ERROR", ".flops needs its .flop_type");
  st_expect(&r, "work.share_above_one", "ERROR", "the share must be a number in (0, 1]");
  st_expect(&r, "work.negative_bytes", "ERROR", "workload 'a': .bytes_read is not a number >= 0");
  st_run_free(&r);
}

/* Host work: without a GPU the calibrations cannot run (skipped, saying
 * so); with one, host work is no share of a GPU's peak (ERROR): DRAM's
 * and the host link's alike. */
ST_TEST(throughput_bandwidth_of_host_work)
{
  st_run r;
  st_exec(&r, "", "--filter=work.bandwidth_of_host_work:work.link_bandwidth_needs_a_gpu --budget=0.2");
  static const char *const names[] = {"work.bandwidth_of_host_work", "work.link_bandwidth_needs_a_gpu"};
  for (int i = 0; i < 2; i++)
    if (st_have_gpu()) st_expect(&r, names[i], "ERROR", "queued no GPU work");
    else st_expect(&r, names[i], "SKIP", "no CUDA device");
  ST_EQ(r.status, st_have_gpu() ? 1 : 0);
  st_run_free(&r);
}

/* A sweep whose workloads declare their work: --plots draws their time
 * and their throughput against the parameter. */
ST_TEST(throughput_charts_beside_the_time_charts)
{
  char dir[] = "/tmp/perfgate-wplot-XXXXXX", args[400], path[400];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(args, sizeof args, "--filter=work.sweep_throughput --budget=0.2 --plots=%s", dir);
  st_run r;
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 0 || r.status == 1, "%s", r.out);
  snprintf(path, sizeof path, "%s/work.sweep_throughput--throughput-n.svg", dir);
  char *svg = st_slurp(path);
  ST_CHECKF(svg && strstr(svg, "throughput against n") && strstr(svg, "a bytes (wall)") &&
                strstr(svg, "b bytes (wall)"), "%s", svg ? svg : r.out);
  free(svg);
  snprintf(path, sizeof path, "%s/work.sweep_throughput--time-n.svg", dir);
  svg = st_slurp(path);
  ST_CHECK(svg != NULL);
  free(svg);
  st_run_free(&r);
  st_rmtree(dir);
}
