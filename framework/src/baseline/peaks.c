/* peaks.c — a workload's declared work and the GPU peak rates it is a share of. */
/* The flop types' words, throughput from a time, and a GPU's peak rates from
 * its specification. */
#include "baseline/peaks.h"

#include "util/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const words[] = {
#define PERF__X(sym, word) word,
    PERF_FLOP_TYPE_MAP(PERF__X)
#undef PERF__X
};

/* See peaks.h. */
const char *perf__peaks_type_word(perf_flop_type t)
{
  return (unsigned)t < PERF_FLOP_TYPE_COUNT ? words[t] : "?";
}

/* See peaks.h. */
perf_flop_type perf__peaks_type_of(const char *word)
{
  for (int t = 0; word && t < PERF_FLOP_TYPE_COUNT; t++)
    if (!strcmp(word, words[t])) return (perf_flop_type)t;
  return PERF_FLOP_TYPE_COUNT;
}

/* See peaks.h. */
int perf__peaks_declared(const perf__peaks_work *w)
{
  return w->bytes_read > 0 || w->bytes_written > 0 || w->flops > 0;
}

/* See peaks.h. */
double perf__peaks_bytes(const perf__peaks_work *w) { return w->bytes_read + w->bytes_written; }

/* See peaks.h. */
void perf__peaks_rate(double work, double seconds, const double *ci, double rate[3])
{
  rate[0] = seconds > 0 ? work / seconds : NAN;
  rate[1] = ci && ci[1] > 0 ? work / ci[1] : NAN;
  rate[2] = ci && ci[0] > 0 ? work / ci[0] : NAN;
}

/* See peaks.h. */
char *perf__peaks_rate_text(char *buf, size_t len, double rate, int bytes, perf_flop_type t)
{
  static const char *const prefix[] = {"", "K", "M", "G", "T", "P", "E"};
  const char *unit = bytes ? "B/s" : t == PERF_FLOP_INT8 ? "OP/s" : "FLOP/s";
  int k = 0;
  if (!isfinite(rate) || rate < 0) {
    snprintf(buf, len, "n/a");
    return buf;
  }
  while (rate >= 1000 && k < 6) rate /= 1000, k++;
  snprintf(buf, len, "%.*f %s%s", rate >= 100 ? 1 : rate >= 10 ? 2 : 3, rate, prefix[k], unit);
  return buf;
}

/* "R [lo, hi]" of work w over med with interval ci into buf. Never fails
 * (truncates). */
static void rate_with_interval(char *buf, size_t len, double work, double med, const double *ci,
                               int bytes, perf_flop_type t)
{
  double r[3];
  char a[32], lo[32], hi[32];
  perf__peaks_rate(work, med, ci, r);
  perf__peaks_rate_text(a, sizeof a, r[0], bytes, t);
  if (isnan(r[1]) || isnan(r[2]))
    snprintf(buf, len, "%s", a);
  else
    snprintf(buf, len, "%s [%s, %s]", a, perf__peaks_rate_text(lo, sizeof lo, r[1], bytes, t),
             perf__peaks_rate_text(hi, sizeof hi, r[2], bytes, t));
}

/* See peaks.h. */
char *perf__peaks_throughput_text(char *buf, size_t len, const perf__peaks_work *w, double med,
                                  const double *ci, const char *clock)
{
  char b[96] = "", f[160] = "";
  buf[0] = '\0';
  if (!perf__peaks_declared(w)) return buf;
  if (perf__peaks_bytes(w) > 0) rate_with_interval(b, sizeof b, perf__peaks_bytes(w), med, ci, 1, 0);
  if (w->flops > 0) {
    char r[96];
    rate_with_interval(r, sizeof r, w->flops, med, ci, 0, w->type);
    snprintf(f, sizeof f, "%s%s %s", b[0] ? " and " : "", r,
             w->type ? perf__peaks_type_word(w->type) : "(no .flop_type)");
  }
  snprintf(buf, len, "%s%s (%s clock)", b, f, clock);
  return buf;
}

/* See peaks.h. */
int perf__peaks_fits_l2(const perf__peaks_device *d, const perf__peaks_work *w)
{
  return d->l2_bytes > 0 && perf__peaks_bytes(w) < PERF__PEAKS_L2_FACTOR * d->l2_bytes;
}

/* See peaks.h. */
double perf__peaks_dram(const perf__peaks_device *d)
{
  if (!(d->mem_clock_mhz > 0) || d->bus_bits <= 0) return 0;
  return d->mem_clock_mhz * 1e6 * 2 * (d->bus_bits / 8.0);
}

/* See peaks.h. */
const char *perf__peaks_link_word(int ways)
{
  return ways == PERF__LINK_TO_DEVICE ? "link_h2d" : ways == PERF__LINK_TO_HOST ? "link_d2h" : "link";
}

/* See peaks.h. */
double perf__peaks_link(const perf__peaks_device *d, char *basis, size_t len)
{
  static const double lane_gb[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563};
  if (!d->pcie_gen || !d->pcie_lanes || d->pcie_gen >= sizeof lane_gb / sizeof lane_gb[0]) {
    snprintf(basis, len, "link peak unknown: %s", d->pcie_gen ? "a PCIe generation perfgate does "
                                                              "not know" : "NVML did not say the PCIe link");
    return 0;
  }
  double each = lane_gb[d->pcie_gen] * d->pcie_lanes * 1e9;
  snprintf(basis, len, "PCIe gen %u x%u: %.1f GB/s each way", d->pcie_gen, d->pcie_lanes, each / 1e9);
  return 2 * each;
}

typedef struct row {
  int major, minor;
  perf_flop_type type;
  double per_sm_clock;
  const char *units, *source;
} row;

static const row rows[] = {
#define PERF__X(ma, mi, t, rate, units, source) {ma, mi, PERF_FLOP_##t, rate, units, source},
    PERF__PEAKS_MATH_MAP(PERF__X)
#undef PERF__X
};

/* See peaks.h. */
double perf__peaks_math(const perf__peaks_device *d, perf_flop_type t, char *basis, size_t len)
{
  const row *r = NULL;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0] && !r; i++)
    if (rows[i].major == d->cc_major && rows[i].minor == d->cc_minor && rows[i].type == t)
      r = &rows[i];
  if (!r) {
    snprintf(basis, len, "peak unknown: perfgate has no %s rate for compute capability %d.%d",
             perf__peaks_type_word(t), d->cc_major, d->cc_minor);
    return 0;
  }
  if (d->sms <= 0 || !(d->sm_clock_mhz > 0)) {
    snprintf(basis, len, "peak unknown: the GPU did not say its SM count and clock");
    return 0;
  }
  snprintf(basis, len, "%s on %s: %g/SM/clock x %d %s x %.0f MHz (%s)", perf__peaks_type_word(t),
           r->units, r->per_sm_clock, d->sms, perf__units_noun(d->sms, "SM", "SMs"),
           d->sm_clock_mhz, r->source);
  return r->per_sm_clock * d->sms * d->sm_clock_mhz * 1e6;
}
