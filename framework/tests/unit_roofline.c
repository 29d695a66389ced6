/* unit_roofline.c — a workload's time on two GPUs predicted from its work and their peaks. */
/* The roofline's arithmetic, its bound, the peaks a file's calibrations
 * give, link bytes from a trace. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "baseline/baseline.h"
#include "report/roofline.h"
#include "baseline/trace.h"
#include "selftest.h"

/* 1 GB of DRAM bytes and 1 TFLOP of fp16 on a GPU of 2 TB/s and 500
 * TFLOP/s: 0.5 ms and 2 ms, compute-bound; on one of 4 TB/s and 2
 * PFLOP/s: 0.25 and 0.5 ms, compute-bound: 4x. */
ST_TEST(roofline_time_is_the_largest_bound)
{
  perf__roofline_work w = {.amount = {1e9, 0, 1e12}, .type = PERF_FLOP_FP16};
  double a[PERF__ROOF_NBOUNDS] = {2e12, 0, 500e12}, b[PERF__ROOF_NBOUNDS] = {4e12, 0, 2000e12};
  perf__roofline_bound k = PERF__ROOF_LINK;
  ST_NEAR(perf__roofline_time(&w, a, &k), 2e-3, 1e-12);
  ST_EQ(k, PERF__ROOF_MATH);
  /* bytes alone: memory-bound */
  w.amount[PERF__ROOF_MATH] = 0;
  ST_NEAR(perf__roofline_time(&w, a, &k), 0.5e-3, 1e-12);
  ST_EQ(k, PERF__ROOF_DRAM);
  /* no link peak for link bytes: no time, the bound that lacks one named */
  w.amount[PERF__ROOF_LINK] = 1e8;
  ST_NEAR(perf__roofline_time(&w, b, &k), -1, 0);
  ST_EQ(k, PERF__ROOF_LINK);
  /* nothing declared: 0 */
  perf__roofline_work none = {.type = PERF_FLOP_NONE};
  ST_NEAR(perf__roofline_time(&none, a, &k), 0, 0);
}

/* The prediction is the ratio of the two predicted times, with each GPU's
 * bound; bytes and flops whose bounds differ between the GPUs are named
 * each; a GPU without a peak the work needs leaves none, naming which. */
ST_TEST(roofline_predicts_the_ratio_and_each_bound)
{
  const double rate[2][PERF__ROOF_NBOUNDS] = {{2e12, 50e9, 500e12}, {4e12, 0, 2000e12}};
  perf__roofline_prediction p;
  int gpu = -1;
  perf__roofline_bound k = PERF__ROOF_NBOUNDS;
  perf__roofline_work mem = {.amount = {1e9, 0, 0}};
  ST_EQ(perf__roofline_predict(&mem, rate, &p, &gpu, &k), PERF__ROOF_PREDICTED);
  ST_NEAR(p.ratio, 2.0, 1e-12);
  ST_EQ(p.bound[0], PERF__ROOF_DRAM);
  ST_EQ(p.bound[1], PERF__ROOF_DRAM);
  /* 3 GB and 1 TFLOP: A 1.5 ms DRAM vs 2 ms math (compute-bound), B 0.75
   * vs 0.5 ms (memory-bound): 2 / 0.75 */
  perf__roofline_work mixed = {.amount = {3e9, 0, 1e12}, .type = PERF_FLOP_FP16};
  ST_EQ(perf__roofline_predict(&mixed, rate, &p, &gpu, &k), PERF__ROOF_PREDICTED);
  ST_NEAR(p.ratio, 2.0 / 0.75, 1e-9);
  ST_EQ(p.bound[0], PERF__ROOF_MATH);
  ST_EQ(p.bound[1], PERF__ROOF_DRAM);
  ST_NEAR(p.time_s[0], 2e-3, 1e-12);
  ST_NEAR(p.time_s[1], 0.75e-3, 1e-12);
  /* link bytes: GPU 1 has no link peak */
  perf__roofline_work up = {.amount = {1e8, 1e8, 0}, .link_ways = PERF__LINK_TO_DEVICE};
  ST_EQ(perf__roofline_predict(&up, rate, &p, &gpu, &k), PERF__ROOF_NO_PEAK);
  ST_EQ(gpu, 1);
  ST_EQ(k, PERF__ROOF_LINK);
  perf__roofline_work none = {.type = PERF_FLOP_NONE};
  ST_EQ(perf__roofline_predict(&none, rate, &p, &gpu, &k), PERF__ROOF_NO_WORK);
  ST_STR(perf__roofline_adjective(PERF__ROOF_DRAM), "memory-bound");
  ST_STR(perf__roofline_adjective(PERF__ROOF_MATH), "compute-bound");
  ST_STR(perf__roofline_noun(PERF__ROOF_LINK), "host link");
  ST_STR(perf__roofline_adjective((perf__roofline_bound)9), "?");
}

/* A calibration entry of test "perfgate" into b. */
static void peak(perf__baseline *b, const char *name, double median, double bytes, double flops,
                 perf_flop_type t)
{
  perf__baseline_entry e = {.median_s = median, .samples = 10, .tolerance = 0.01,
                            .work = {.bytes_read = bytes / 2, .bytes_written = bytes / 2,
                                     .flops = flops, .type = t}};
  snprintf(e.test, sizeof e.test, "perfgate");
  snprintf(e.workload, sizeof e.workload, "%s", name);
  snprintf(e.clock, sizeof e.clock, "events");
  ST_EQ(perf__baseline_put_entry(b, &e), 0);
}

/* A file's peak for a bound: its calibration's work over its time, on
 * the workload's clock first, else on the first clock of the table that
 * the file holds one for; none names the entry on the workload's clock. */
ST_TEST(roofline_peaks_come_from_the_files_calibrations)
{
  perf__baseline b;
  char name[96];
  perf__baseline_init(&b);
  peak(&b, "peak_dram_events", 1e-3, 2e9, 0, PERF_FLOP_NONE);
  peak(&b, "peak_dram_cold", 2e-3, 2e9, 0, PERF_FLOP_NONE);
  peak(&b, "peak_fp16_events", 2e-3, 0, 1e12, PERF_FLOP_FP16);
  peak(&b, "peak_link_wall", 4e-3, 2e8, 0, PERF_FLOP_NONE);
  perf__roofline_work w = {.amount = {1e9, 1e8, 1e12}, .type = PERF_FLOP_FP16,
                           .link_ways = PERF__LINK_BOTH};
  ST_NEAR(perf__roofline_peak(&b, &w, PERF__ROOF_DRAM, "cold", name, sizeof name), 1e12, 1);
  ST_STR(name, "peak_dram_cold");
  /* none on the wall clock: the events clock's, the first in the table */
  ST_NEAR(perf__roofline_peak(&b, &w, PERF__ROOF_DRAM, "wall", name, sizeof name), 2e12, 1);
  ST_STR(name, "peak_dram_events");
  ST_NEAR(perf__roofline_peak(&b, &w, PERF__ROOF_MATH, "events", name, sizeof name), 500e12, 1);
  ST_NEAR(perf__roofline_peak(&b, &w, PERF__ROOF_LINK, "events", name, sizeof name), 50e9, 1);
  ST_STR(name, "peak_link_wall");
  /* a link one way only, and a flop type, the file has no calibration for */
  w.link_ways = PERF__LINK_TO_DEVICE;
  ST_NEAR(perf__roofline_peak(&b, &w, PERF__ROOF_LINK, "wall", name, sizeof name), 0, 0);
  ST_STR(name, "peak_link_h2d_wall");
  w.type = PERF_FLOP_BF16;
  ST_NEAR(perf__roofline_peak(&b, &w, PERF__ROOF_MATH, "events", name, sizeof name), 0, 0);
  ST_STR(name, "peak_bf16_events");
  ST_STR(perf__roofline_what(&w, PERF__ROOF_DRAM), "dram");
  perf__baseline_free(&b);
}

/* An entry's work: its declared bytes and flops, and the bytes its trace
 * copies between host and device each way (not those within the device);
 * nothing declared is no work, whatever the trace copies; a trace that
 * does not parse adds no link bytes. */
ST_TEST(roofline_work_takes_link_bytes_from_the_trace)
{
  const char *trace =
      "{\"calls\": 1, \"names\": \"demangled\", \"device_s\": 0.003, \"dropped\": 0, \"items\": ["
      "{\"kind\": \"copy\", \"name\": \"cudaMemcpyAsync\", \"shape\": \"host→device, pinned\", "
      "\"where\": \"a.c:1 (f)\", \"count\": 2, \"bytes\": 1000, \"device_s\": 0.001}, "
      "{\"kind\": \"copy\", \"name\": \"cudaMemcpyAsync\", \"shape\": \"device→host, pageable\", "
      "\"where\": \"a.c:2 (f)\", \"count\": 1, \"bytes\": 300, \"device_s\": 0.001}, "
      "{\"kind\": \"copy\", \"name\": \"cudaMemcpyAsync\", \"shape\": \"device→device\", "
      "\"where\": \"a.c:3 (f)\", \"count\": 1, \"bytes\": 5000, \"device_s\": 0.001}]}";
  perf__peaks_work d = {.bytes_read = 300, .bytes_written = 1000};
  perf__roofline_work w;
  ST_EQ(perf__roofline_work_of(&d, trace, &w), 1);
  ST_NEAR(w.amount[PERF__ROOF_DRAM], 1300, 0);
  ST_NEAR(w.amount[PERF__ROOF_LINK], 1300, 0);
  ST_EQ(w.link_ways, PERF__LINK_BOTH);
  ST_STR(perf__roofline_what(&w, PERF__ROOF_LINK), "link");
  ST_EQ(perf__roofline_work_of(&d, "{not json", &w), 1);
  ST_NEAR(w.amount[PERF__ROOF_LINK], 0, 0);
  ST_EQ(w.link_ways, 0);
  perf__peaks_work none = {0};
  ST_EQ(perf__roofline_work_of(&none, trace, &w), 0);
  ST_NEAR(w.amount[PERF__ROOF_LINK], 0, 0);
  /* the trace's own count of them */
  perf__trace t;
  char why[200];
  double up, down;
  ST_EQ(perf__trace_parse(trace, &t, why, sizeof why), 0);
  perf__trace_host_copy_bytes(&t, &up, &down);
  ST_NEAR(up, 1000, 0);
  ST_NEAR(down, 300, 0);
  perf__trace_free(&t);
}
