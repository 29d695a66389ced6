/* throughput.c — a workload's declared work in the worker: checked, recorded, shown by its time. */
/* The claim record holds it with the peaks it is a share of. */
#define _POSIX_C_SOURCE 200809L
#include "worker/claim/throughput.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/clock.h"
#include "util/units.h"
#include "worker/context.h"
#include "worker/device/fingerprint.h"
#include "worker/sample/workload.h"

/* See throughput.h. */
perf__peaks_work perf__throughput_work(const perf_workload *w)
{
  return (perf__peaks_work){w->bytes_read, w->bytes_written, w->flops, w->flop_type};
}

/* 1 when v is a number >= 0. Never fails. */
static int amount(double v) { return isfinite(v) && v >= 0; }

/* See throughput.h. */
void perf__throughput_check(const char *head, const perf_workload *w)
{
  const char *bad = !amount(w->bytes_read)        ? ".bytes_read is not a number >= 0"
                    : !amount(w->bytes_written)   ? ".bytes_written is not a number >= 0"
                    : !amount(w->flops)           ? ".flops is not a number >= 0"
                    : (unsigned)w->flop_type >= PERF_FLOP_TYPE_COUNT ? ".flop_type is not a perf_flop_type"
                    : w->flops > 0 && w->flop_type == PERF_FLOP_NONE
                        ? ".flops needs its .flop_type (PERF_FLOP_FP32, _FP16, ...): the peak it "
                          "is a share of"
                        : NULL;
  if (bad) perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: workload '%s': %s", head, w->name, bad);
}

/* strdup that takes NULL; NULL without memory. */
static char *dup(const char *s) { return s ? strdup(s) : NULL; }

/* See throughput.h. */
void perf__throughput_record(perf__claimrec_workload *o, const perf_workload *w)
{
  char basis[300] = "";
  o->work = perf__throughput_work(w);
  if (!perf__peaks_declared(&o->work) || !w->perf__state->uses_gpu) return;
  const perf__peaks_device *d = perf__fingerprint_peaks();
  char link[120];
  int over_link = perf__trace_host_copy_share(&o->trace) > 0.5;
  o->spec_dram = perf__peaks_bytes(&o->work) > 0 && !over_link ? perf__peaks_dram(d) : 0;
  o->spec_link = perf__peaks_bytes(&o->work) > 0 && over_link ? perf__peaks_link(d, link, sizeof link) : 0;
  if (o->work.flops > 0) {
    o->spec_math = perf__peaks_math(d, o->work.type, basis, sizeof basis);
    o->spec_math_basis = dup(basis);
  }
}

/* A peak a rate is given a share of: its rate, its name, how it was known. */
typedef struct peak_row {
  double peak;
  const char *name, *basis;
} peak_row;

/* "; 80.9 % of the NAME peak 3.35 TB/s (basis)" for rate against peak
 * (nothing when either is unknown), appended at *used. Never fails
 * (truncates). */
static void share(char *buf, size_t len, size_t *used, double rate, int bytes, perf_flop_type t,
                  peak_row k)
{
  char p[32];
  if (!(k.peak > 0) || !isfinite(rate)) return;
  perf__units_append(buf, len, used, "; %.1f %% of the %s %s", 100 * rate / k.peak, k.name,
                     perf__peaks_rate_text(p, sizeof p, k.peak, bytes, t));
  if (k.basis && k.basis[0]) perf__units_append(buf, len, used, " (%s)", k.basis);
}

/* See throughput.h. */
void perf__throughput_print(const perf__claimrec_workload *o, const char *clock)
{
  const perf__peaks_work *k = &o->work;
  if (!perf__peaks_declared(k)) return;
  const perf__peaks_device *d = perf__fingerprint_peaks();
  char line[1400], dram[120] = "";
  size_t used = 0;
  double r[3];
  perf__units_append(line, sizeof line, &used, "  %s: %s", o->name ? o->name : "?",
                     perf__peaks_throughput_text((char[400]){0}, 400, k, o->median_s,
                                                 o->median_interval_s, clock));
  if (perf__peaks_bytes(k) > 0) {
    perf__peaks_rate(perf__peaks_bytes(k), o->median_s, o->median_interval_s, r);
    if (d->mem_clock_mhz > 0)
      snprintf(dram, sizeof dram, "%.0f MHz x 2 x %d bits", d->mem_clock_mhz, d->bus_bits);
    share(line, sizeof line, &used, r[0], 1, 0,
          (peak_row){o->spec_dram, "spec DRAM peak", dram});
    share(line, sizeof line, &used, r[0], 1, 0,
          (peak_row){o->measured_dram, "measured DRAM peak", o->measured_from});
    if (o->spec_link > 0) {
      char link[120];
      perf__peaks_link(d, link, sizeof link);
      perf__units_append(line, sizeof line, &used, "; its traced device time is mostly copies "
                         "between host and device");
      share(line, sizeof line, &used, r[0], 1, 0,
          (peak_row){o->spec_link, "spec host-link peak (both ways)", link});
    }
    perf_clock c = (perf_clock)perf__clock_of_name(clock);
    if (o->spec_dram > 0 && !perf__clock_flushes_l2(c) && perf__peaks_fits_l2(d, k)) {
      char mb[32], l2[32];
      snprintf(mb, sizeof mb, "%.1f MiB", perf__peaks_bytes(k) / (1 << 20));
      snprintf(l2, sizeof l2, "%.0f MiB", d->l2_bytes / (1 << 20));
      perf__units_append(line, sizeof line, &used, "; its %s fit in %d x the %s L2: they may "
                         "come from L2, not DRAM (the cold clock flushes L2 before each sample)",
                         mb, PERF__PEAKS_L2_FACTOR, l2);
    }
  }
  if (k->flops > 0) {
    perf__peaks_rate(k->flops, o->median_s, o->median_interval_s, r);
    if (!(o->spec_math > 0) && o->spec_math_basis)
      perf__units_append(line, sizeof line, &used, "; %s", o->spec_math_basis);
    share(line, sizeof line, &used, r[0], 0, k->type,
          (peak_row){o->spec_math, "spec math peak", o->spec_math_basis});
    share(line, sizeof line, &used, r[0], 0, k->type,
          (peak_row){o->measured_math, "measured math peak", o->measured_from});
  }
  perf__context_line(PERF_LINE_DETAIL, "%s", line);
}
