/* peaks.h — a workload's declared work and the GPU peak rates it is a share of. */
/* The flop types' words, throughput from a time, and a GPU's peak rates from
 * its specification. */
#ifndef PERF_PEAKS_H
#define PERF_PEAKS_H

#include <stddef.h>

#include "util/status.h" /* perf_flop_type: perfgate.h's plain-C part */

/* A workload declares what one iteration moves and computes (perfgate.h:
 * .bytes_read, .bytes_written, .flops, .flop_type); its throughput is
 * that work over its time per iteration, on the clock that timed it, and
 * the interval of the time gives the interval of the rate (a time's upper
 * bound is the rate's lower one). A GPU's spec peaks come from what it
 * says of itself: DRAM bandwidth from its memory clock and bus width
 * (2 transfers a clock), math from a table of rates per SM per clock for
 * each architecture and data type (PERF__PEAKS_MATH_MAP) times its SMs
 * and its highest SM clock. A GPU the table does not know has no math
 * peak ("peak unknown"); a peak measured on the machine (a calibration,
 * worker/sample/calibrate.h) is the one a speed-of-light claim decides
 * on. */

/* One iteration's declared work; all 0: none declared. */
typedef struct perf__peaks_work {
  double bytes_read, bytes_written, flops;
  perf_flop_type type;
} perf__peaks_work;

/* What a GPU says of itself (cudaDeviceGetAttribute), for its peaks; a 0
 * member is unknown. */
typedef struct perf__peaks_device {
  int cc_major, cc_minor, sms;
  double sm_clock_mhz;  /* its highest SM clock */
  double mem_clock_mhz; /* its memory clock */
  int bus_bits;         /* its memory bus width */
  double l2_bytes;      /* its L2 cache */
  unsigned pcie_gen, pcie_lanes; /* the most its host link reaches (NVML) */
} perf__peaks_device;

/* Rates of math per SM per clock, dense, by compute capability and data
 * type: X(major, minor, type, per SM per clock, unit kind, source). The
 * H100 SXM whitepaper's figures reproduce from these at 1980 MHz for the
 * vector units and at 1830 MHz for the tensor cores (NVIDIA quotes its
 * tensor peaks at that clock); perfgate computes every peak at the GPU's
 * own highest SM clock and says so. */
#define PERF__PEAKS_MATH_MAP(X)                                                          \
  X(9, 0, FP64, 256, "tensor cores (DMMA)", "NVIDIA H100 whitepaper: FP64 Tensor Core")   \
  X(9, 0, FP32, 256, "CUDA cores (FFMA)", "NVIDIA H100 whitepaper: FP32")                \
  X(9, 0, TF32, 2048, "tensor cores, dense", "NVIDIA H100 whitepaper: TF32 Tensor Core") \
  X(9, 0, FP16, 4096, "tensor cores, dense", "NVIDIA H100 whitepaper: FP16 Tensor Core") \
  X(9, 0, BF16, 4096, "tensor cores, dense", "NVIDIA H100 whitepaper: BF16 Tensor Core") \
  X(9, 0, FP8, 8192, "tensor cores, dense", "NVIDIA H100 whitepaper: FP8 Tensor Core")   \
  X(9, 0, INT8, 8192, "tensor cores, dense", "NVIDIA H100 whitepaper: INT8 Tensor Core")

/* The word of a flop type ("fp16"; "none"); "?" for a bad value. Never
 * fails. */
const char *perf__peaks_type_word(perf_flop_type t);
/* The flop type a word names, or PERF_FLOP_TYPE_COUNT for another word or
 * NULL. Never fails. */
perf_flop_type perf__peaks_type_of(const char *word);

/* 1 when w declares any work. Never fails. */
int perf__peaks_declared(const perf__peaks_work *w);
/* The bytes one iteration moves (read + written). Never fails. */
double perf__peaks_bytes(const perf__peaks_work *w);

/* The rate of work per second over a time per iteration, and its interval
 * from the time's (ci: [lo, hi] seconds, NaN: unknown): rate[0] the rate,
 * rate[1..2] its bounds (NaN when unknown). Never fails. */
void perf__peaks_rate(double work, double seconds, const double *ci, double rate[3]);

/* A rate as text with its unit: bytes ("2.71 TB/s", "850.3 GB/s") or
 * math of type t ("905.2 TFLOP/s", "1.62 POP/s" for int8). Returns buf;
 * truncates. Never fails. */
char *perf__peaks_rate_text(char *buf, size_t len, double rate, int bytes, perf_flop_type t);

/* A workload's throughput with its interval and clock, e.g. "2.71 TB/s
 * [2.69, 2.73] and 1.10 TFLOP/s [..] (fp32) (events clock)", for w's work
 * over a median time med with interval ci; "" when w declares nothing.
 * Returns buf; truncates. Never fails. */
char *perf__peaks_throughput_text(char *buf, size_t len, const perf__peaks_work *w, double med,
                                  const double *ci, const char *clock);

/* The DRAM share of a rate is the share of a peak only when the bytes
 * came from DRAM: a working set below this many times the L2 can be
 * served from it on a clock that does not flush it. */
#define PERF__PEAKS_L2_FACTOR 2

/* 1 when w's bytes may come from d's L2 rather than DRAM on a clock that
 * does not flush it (cold: flushes): bytes moved below
 * PERF__PEAKS_L2_FACTOR x L2. 0 when the L2 is unknown. Never fails. */
int perf__peaks_fits_l2(const perf__peaks_device *d, const perf__peaks_work *w);

/* The GPU's spec DRAM bandwidth in bytes per second (memory clock x 2 x
 * bus bytes), or 0 when d does not say. Never fails. */
double perf__peaks_dram(const perf__peaks_device *d);

/* The ways of the host link bytes take, as a mask: to the device, to the
 * host, both (a calibration of the link copies the ways a workload's
 * bytes go: worker/sample/calibrate.h). */
enum { PERF__LINK_TO_DEVICE = 1, PERF__LINK_TO_HOST = 2, PERF__LINK_BOTH = 3 };

/* The link's word for ways: "link" (both), "link_h2d", "link_d2h"; a
 * link calibration's baseline entry and workload are named from it.
 * Never fails. */
const char *perf__peaks_link_word(int ways);

/* The host link's spec bandwidth in bytes per second, both directions at
 * once (PCIe is full duplex): 2 x lanes x the generation's rate a lane
 * after its encoding (gen 1: 0.25 GB/s, 2: 0.5, 3: 0.985, 4: 1.969, 5:
 * 3.938, 6: 7.563), "PCIe gen 5 x16: 63.0 GB/s each way" into basis;
 * 0 when d does not say or the generation is unknown. Never fails. */
double perf__peaks_link(const perf__peaks_device *d, char *basis, size_t len);

/* The GPU's spec math rate for type t in operations per second, or 0 when
 * the table has no row for its architecture and t; basis[len] gets how it
 * was computed ("fp16 on tensor cores, dense: 4096/SM/clock x 132 SMs x
 * 1980 MHz (NVIDIA H100 whitepaper: FP16 Tensor Core)") or why it is
 * unknown. Never fails. */
double perf__peaks_math(const perf__peaks_device *d, perf_flop_type t, char *basis, size_t len);

#endif
