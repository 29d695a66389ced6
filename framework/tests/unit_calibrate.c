/* unit_calibrate.c — the calibrations' choices, made without a GPU. */
/* Which ways of the host link a workload's bytes take, and the words and
 * descriptions that follow from them. */
#define _GNU_SOURCE
#include <string.h>

#include "perfgate.h"
#include "selftest.h"
#include "worker/sample/calibrate.h"

/* A workload that only uploads is held to the link's one-way peak, one that
 * only downloads to the other way's, one that does both (or declares no
 * bytes, as bench-peaks's) to both ways at once: a stranger's upload
 * claimed 0.4 of the both-ways peak, all a one-way copy can reach of it. */
ST_TEST(calibrate_link_goes_the_ways_the_workloads_bytes_go)
{
  perf_workload up = {.bytes_written = 1 << 20}, down = {.bytes_read = 1 << 20},
                both = {.bytes_read = 1, .bytes_written = 1}, none = {0};
  ST_EQ(perf__calibrate_link_ways(&up), PERF__LINK_TO_DEVICE);
  ST_EQ(perf__calibrate_link_ways(&down), PERF__LINK_TO_HOST);
  ST_EQ(perf__calibrate_link_ways(&both), PERF__LINK_BOTH);
  ST_EQ(perf__calibrate_link_ways(&none), PERF__LINK_BOTH);
  ST_STR(perf__peaks_link_word(PERF__LINK_TO_DEVICE), "link_h2d");
  ST_STR(perf__peaks_link_word(PERF__LINK_TO_HOST), "link_d2h");
  ST_STR(perf__peaks_link_word(PERF__LINK_BOTH), "link");
  char buf[200];
  ST_STR(perf__calibrate_describe(PERF__CAL_LINK, PERF_FLOP_NONE, PERF__LINK_TO_DEVICE, buf, sizeof buf),
         "perfgate's pinned copy of 256 MiB to the device");
  ST_STR(perf__calibrate_describe(PERF__CAL_LINK, PERF_FLOP_NONE, PERF__LINK_TO_HOST, buf, sizeof buf),
         "perfgate's pinned copy of 256 MiB from the device");
  ST_STR(perf__calibrate_describe(PERF__CAL_LINK, PERF_FLOP_NONE, PERF__LINK_BOTH, buf, sizeof buf),
         "perfgate's pinned copies of 256 MiB to the device and back at once");
  ST_STR(perf__calibrate_describe(PERF__CAL_MATH, PERF_FLOP_FP16, 0, buf, sizeof buf),
         "a cuBLASLt fp16 GEMM, 8192^3, algorithm by cuBLASLt's heuristic");
}
