/* unit_peaks.c — declared work and peaks, from the H100's spec peaks to a record's round trip. */
/* The H100's spec peaks from its attributes, rates and their intervals as
 * text, the L2 rule, flop-type words, and a speed-of-light record's round
 * trip. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/claimrec.h"
#include "baseline/peaks.h"
#include "perfgate.h"
#include "selftest.h"

/* What an H100 SXM said of itself (cudaDeviceGetAttribute, 2026-11-26). */
static const perf__peaks_device h100 = {.cc_major = 9, .cc_minor = 0, .sms = 132,
                                        .sm_clock_mhz = 1980, .mem_clock_mhz = 2619,
                                        .bus_bits = 5120, .l2_bytes = 50.0 * (1 << 20)};

ST_TEST(peaks_h100_spec_from_its_attributes)
{
  char basis[300];
  /* 2619 MHz x 2 x 640 bytes: nvbench's formula; ncu said 3.35 TB/s too */
  ST_NEAR(perf__peaks_dram(&h100), 3.35232e12, 1e6);
  /* the whitepaper's vector figures at 1980 MHz: FP32 66.9, FP64 (tensor) 66.9 TFLOPS */
  ST_NEAR(perf__peaks_math(&h100, PERF_FLOP_FP32, basis, sizeof basis), 66.908e12, 0.01e12);
  ST_NEAR(perf__peaks_math(&h100, PERF_FLOP_FP64, basis, sizeof basis), 66.908e12, 0.01e12);
  /* tensor: the whitepaper's 989.4 TFLOPS FP16 is at 1830 MHz; at 1980: 1070.5 */
  ST_NEAR(perf__peaks_math(&h100, PERF_FLOP_FP16, basis, sizeof basis), 1070.5e12, 0.1e12);
  ST_NEAR(perf__peaks_math(&h100, PERF_FLOP_FP16, basis, sizeof basis) * 1830 / 1980, 989.4e12,
          0.1e12);
  ST_NEAR(perf__peaks_math(&h100, PERF_FLOP_FP8, basis, sizeof basis),
          2 * perf__peaks_math(&h100, PERF_FLOP_BF16, basis, sizeof basis), 1);
  ST_CHECKF(strstr(basis, "8192/SM/clock x 132 SMs x 1980 MHz") && strstr(basis, "whitepaper"), "%s",
            basis);
  ST_EQ(perf__peaks_math(&h100, PERF_FLOP_NONE, basis, sizeof basis), 0);
}

/* The host link: an H100 SXM's PCIe gen 5 x16 is 63.0 GB/s each way,
 * 126.0 GB/s both; an unknown generation has no peak. */
ST_TEST(peaks_host_link_from_its_generation_and_lanes)
{
  char basis[200];
  perf__peaks_device d = h100;
  d.pcie_gen = 5, d.pcie_lanes = 16;
  ST_NEAR(perf__peaks_link(&d, basis, sizeof basis), 126.016e9, 1e6);
  ST_STR(basis, "PCIe gen 5 x16: 63.0 GB/s each way");
  d.pcie_gen = 4, d.pcie_lanes = 8;
  ST_NEAR(perf__peaks_link(&d, basis, sizeof basis), 31.504e9, 1e6);
  d.pcie_gen = 9;
  ST_EQ(perf__peaks_link(&d, basis, sizeof basis), 0);
  ST_CHECKF(strstr(basis, "link peak unknown"), "%s", basis);
  d.pcie_gen = 0;
  ST_EQ(perf__peaks_link(&d, basis, sizeof basis), 0);
  ST_CHECKF(strstr(basis, "NVML did not say"), "%s", basis);
}

ST_TEST(peaks_unknown_gpu_says_why)
{
  perf__peaks_device a100 = h100;
  char basis[300];
  a100.cc_major = 8;
  ST_EQ(perf__peaks_math(&a100, PERF_FLOP_FP16, basis, sizeof basis), 0);
  ST_CHECKF(strstr(basis, "peak unknown") && strstr(basis, "8.0"), "%s", basis);
  a100 = h100;
  a100.sms = 0;
  ST_EQ(perf__peaks_math(&a100, PERF_FLOP_FP16, basis, sizeof basis), 0);
  ST_CHECKF(strstr(basis, "peak unknown"), "%s", basis);
  perf__peaks_device none = {0};
  ST_EQ(perf__peaks_dram(&none), 0);
}

ST_TEST(peaks_rates_and_their_intervals)
{
  double r[3], ci[2] = {0.9e-3, 1.1e-3};
  char buf[200];
  perf__peaks_rate(2e9, 1e-3, ci, r);
  ST_NEAR(r[0], 2e12, 1);
  ST_NEAR(r[1], 2e9 / 1.1e-3, 1); /* the time's upper bound is the rate's lower */
  ST_NEAR(r[2], 2e9 / 0.9e-3, 1);
  double unknown[2] = {NAN, NAN};
  perf__peaks_rate(2e9, 1e-3, unknown, r);
  ST_CHECK(isnan(r[1]) && isnan(r[2]));
  ST_STR(perf__peaks_rate_text(buf, sizeof buf, 3.0246e12, 1, 0), "3.025 TB/s");
  ST_STR(perf__peaks_rate_text(buf, sizeof buf, 850.3e9, 1, 0), "850.3 GB/s");
  ST_STR(perf__peaks_rate_text(buf, sizeof buf, 1.4e15, 0, PERF_FLOP_INT8), "1.400 POP/s");
  ST_STR(perf__peaks_rate_text(buf, sizeof buf, 51.37e12, 0, PERF_FLOP_FP32), "51.37 TFLOP/s");
  ST_STR(perf__peaks_rate_text(buf, sizeof buf, NAN, 1, 0), "n/a");
  perf__peaks_work w = {.bytes_read = 1e9, .bytes_written = 1e9, .flops = 4e9, .type = PERF_FLOP_FP16};
  perf__peaks_throughput_text(buf, sizeof buf, &w, 1e-3, ci, "events");
  ST_STR(buf, "2.000 TB/s [1.818 TB/s, 2.222 TB/s] and 4.000 TFLOP/s [3.636 TFLOP/s, 4.444 "
              "TFLOP/s] fp16 (events clock)");
  perf__peaks_work none = {0};
  ST_STR(perf__peaks_throughput_text(buf, sizeof buf, &none, 1e-3, ci, "events"), "");
}

ST_TEST(peaks_working_set_below_twice_l2_may_come_from_l2)
{
  perf__peaks_work small = {.bytes_read = 40.0 * (1 << 20), .bytes_written = 40.0 * (1 << 20)};
  perf__peaks_work big = {.bytes_read = 64.0 * (1 << 20), .bytes_written = 64.0 * (1 << 20)};
  ST_EQ(perf__peaks_fits_l2(&h100, &small), 1);
  ST_EQ(perf__peaks_fits_l2(&h100, &big), 0);
  perf__peaks_device unknown = h100;
  unknown.l2_bytes = 0;
  ST_EQ(perf__peaks_fits_l2(&unknown, &small), 0);
}

ST_TEST(peaks_flop_type_words_round_trip)
{
  for (int t = 0; t < PERF_FLOP_TYPE_COUNT; t++)
    ST_EQ(perf__peaks_type_of(perf__peaks_type_word((perf_flop_type)t)), t);
  ST_STR(perf__peaks_type_word(PERF_FLOP_BF16), "bf16");
  ST_EQ(perf__peaks_type_of("fp4"), PERF_FLOP_TYPE_COUNT);
  ST_EQ(perf__peaks_type_of(NULL), PERF_FLOP_TYPE_COUNT);
  ST_STR(perf__peaks_type_word((perf_flop_type)99), "?");
}

/* A BANDWIDTH record as solight.c sends one: the share as the ratio, the
 * workload's declared work, spec and measured peaks; its calibration as b. */
static const char bandwidth_text[] =
    "{\"message\": \"BANDWIDTH(one, 0.65) at p.c:9: PASS\", \"outcome\": \"PASS\", "
    "\"kind\": \"BANDWIDTH\", \"clock\": \"events\", \"threshold\": 0.65000000000000002, "
    "\"ratio\": 0.72399999999999998, \"interval\": [0.72299999999999998, 0.72499999999999998], "
    "\"confidence\": 0.94999999999999996, \"rounds\": 12, \"looks\": 1, "
    "\"budget_stretched\": false, \"seconds\": 0.11, "
    "\"a\": {\"name\": \"one\", \"median_s\": 6.1420000000000005e-05, "
    "\"median_interval_s\": [6.1400000000000002e-05, 6.1500000000000004e-05], "
    "\"median_confidence\": 0.94999999999999996, \"mad_s\": 9.9999999999999995e-08, "
    "\"cold_start_s\": 0.001, \"iterations_per_sample\": 16, \"samples_s\": [6.1420000000000005e-05], "
    "\"waits_for\": \"stream\", \"gpu_work_checked\": true, \"undeclared_streams\": false, "
    "\"gpu_work\": \"1 kernel on the declared stream\", "
    "\"work\": {\"bytes_read\": 67108864, \"bytes_written\": 67108864, \"flops\": 0, "
    "\"flop_type\": \"none\", \"bytes_per_s\": [2185244676001.3022, 2182402081300.8127, "
    "2185956482084.6904], \"spec_dram_bytes_per_s\": 3352320000000, "
    "\"measured_dram_bytes_per_s\": 3016000000000, \"measured_from\": \"perfgate's streaming copy\"}}, "
    "\"b\": {\"name\": \"perfgate_copy\", \"median_s\": 0.00071199999999999996, "
    "\"median_interval_s\": [0.00071100000000000004, 0.00071299999999999998], "
    "\"median_confidence\": 0.94999999999999996, \"mad_s\": 9.9999999999999995e-08, "
    "\"cold_start_s\": 0.001, \"iterations_per_sample\": 2, \"samples_s\": [0.00071199999999999996], "
    "\"waits_for\": \"stream\", \"gpu_work_checked\": true, \"undeclared_streams\": false, "
    "\"gpu_work\": \"1 kernel on the declared stream\", "
    "\"work\": {\"bytes_read\": 1073741824, \"bytes_written\": 1073741824, \"flops\": 0, "
    "\"flop_type\": \"none\", \"bytes_per_s\": [3016128719101.1235, 3011898524544.1797, "
    "3020370812939.5215], \"spec_dram_bytes_per_s\": 3352320000000}}}";

ST_TEST(peaks_speed_of_light_record_round_trips)
{
  perf__claimrec r = {0}, c = {0};
  char err[200];
  ST_EQ(perf__claimrec_parse(bandwidth_text, &r, err, sizeof err), 0);
  ST_EQ(r.kind, PERF__CLAIMREC_BANDWIDTH);
  ST_EQ(perf__claimrec_is_ratio(r.kind), 1);
  ST_EQ(perf__claimrec_at_least("BANDWIDTH"), 1);
  ST_EQ(perf__claimrec_at_least("SIMILAR"), 0);
  ST_NEAR(r.ratio.a.work.bytes_read, 67108864, 0);
  ST_NEAR(r.ratio.a.measured_dram, 3.016e12, 1);
  ST_STR(r.ratio.a.measured_from, "perfgate's streaming copy");
  ST_CHECK(r.ratio.b.measured_from == NULL);
  ST_EQ(perf__claimrec_copy(&c, &r), 0);
  char *text = perf__claimrec_text(&c);
  ST_CHECKF(text && !strcmp(text, bandwidth_text), "%s", text ? text : "(null)");
  free(text);
  perf__claimrec_free(&r);
  perf__claimrec_free(&c);
}

ST_TEST(peaks_record_with_an_unknown_flop_type_is_refused)
{
  perf__claimrec r = {0};
  char err[200], *bad = strdup(bandwidth_text);
  char *t = strstr(bad, "\"none\"");
  ST_CHECK(t != NULL);
  memcpy(t, "\"fp4\" ", 6); /* same length: "none" -> "fp4" */
  ST_EQ(perf__claimrec_parse(bad, &r, err, sizeof err), PERF__EPROTO);
  ST_CHECKF(strstr(err, "flop_type"), "%s", err);
  free(bad);
}

/* perf_bytes_beyond_l2: never less than asked; where a device answers, 4x
 * its L2 in whole MiB at least, with no CUDA error left for the caller;
 * without one (CI: no driver), what was asked. */
ST_TEST(peaks_working_set_beyond_the_l2)
{
  const size_t mib = (size_t)1 << 20, asked = 64 * mib;
  size_t got = perf_bytes_beyond_l2(asked);
  ST_CHECK(got >= asked);
  ST_CHECK(perf_bytes_beyond_l2((size_t)1 << 40) == (size_t)1 << 40);
  int dev = 0, l2 = 0;
  if (cudaGetDevice(&dev) == cudaSuccess &&
      cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) == cudaSuccess && l2 > 0) {
    ST_CHECK(got >= 4 * (size_t)l2);
    ST_CHECK(got == asked || got % mib == 0);
    ST_EQ(cudaGetLastError(), cudaSuccess);
  } else {
    ST_EQ(got, asked); /* every CUDA call fails alike: nothing to clear */
  }
}
