/* bldoor.h — the door to this machine's baseline file: entries read, judged and recorded. */
/* Measurements are compared with the file's entries, or recorded for it;
 * a claim's baseline side effects (worker/claim/claim.h's feed) and the
 * BASELINE claim (blclaim.c) go through here. */
#ifndef PERF_BLDOOR_H
#define PERF_BLDOOR_H

#include "baseline/baseline.h"
#include "perfgate.h"
#include "worker/sample/calibrate.h"
#include "worker/claim/compare.h"
#include "worker/sample/inband.h"
#include "worker/sample/reference.h"

/* A workload measured by a ratio claim (median, MAD, samples; clk: the SM
 * clock of its samples; host: the host's load before the measurement, or
 * NULL; launch_s: perfgate's launch reference read beside its samples,
 * seconds per launch, 0 none: baseline/blrule.h's launch-normalized entries): recorded with --update-baselines, compared with
 * --baseline-check=all (when its entry exists; a FAIL is counted as a
 * claim; the line says what the SM clock says, perf__baseline_clock_note).
 * Ends the test as ERROR when this machine's baseline file is malformed,
 * or its entry was measured with another clock. */
void perf__bldoor_measured(perf_workload *w, double median, double mad, long samples,
                                  perf__baseline_mhz clk, const perf__hostload *host,
                                  double launch_s);
/* Both workloads of a comparison m decided (once when a == b), with the SM
 * clock of each one's samples in m's record, as perf__bldoor_measured
 * (and failing as it does). */
void perf__bldoor_pair(perf_workload *a, perf_workload *b, const perf__compare_result *m);
/* A ratio claim's measured ratio: recorded with --update-baselines.
 * Never fails (a ratio that is not a finite number > 0 is not recorded). */
void perf__bldoor_ratio(perf_workload *any, const char *claim, double ratio);

/* The work count of w (the running test's entry, with the sweep point)
 * in this GPU's baseline file, or NULL with why[len] saying why none: no
 * file, another machine's file, no count in it. A malformed file ends the
 * test as ERROR. */
const perf__baseline_work *perf__bldoor_work(const perf_workload *w, char *why, size_t len);
/* With --update-baselines: records one call's counted work of w (warp
 * instructions, DRAM bytes read) as a W record of this GPU's file
 * (supervisor/rebaseline.h). A malformed file ends the test as ERROR. */
void perf__bldoor_record_work(const perf_workload *w, double insts, double dram_read);

/* With --update-baselines, records calibration work cal of peak (of type t
 * for math; its record o, as a speed-of-light claim measured it) in this
 * machine's file as the entry PERF__BL_PEAK_PREFIX + "dram", "link" (or "link_h2d", "link_d2h") or the
 * type + "_" + clock of the test "perfgate", with its declared work: the achievable
 * peak that reports outside such claims give shares of. Nothing
 * otherwise. A malformed file ends the test as ERROR. */
void perf__bldoor_calibration(const perf_workload *cal, perf__calibrate_peak peak,
                                     perf_flop_type t, const perf__claimrec_workload *o);

/* The peaks measured on this machine, from its GPU file's calibration
 * entries for clock (measured_dram, measured_math, measured_from: "..."),
 * into o, w's record, where o declares work and has none measured in the
 * same rounds; nothing for host work or where the file has none. A
 * malformed file ends the test as ERROR. */
void perf__bldoor_peaks(perf__claimrec_workload *o, const perf_workload *w,
                               const char *clock);

/* Detail lines for a claim that failed: what changed in w's GPU work
 * (the routing pass's trace now against the trace in its entry of this
 * machine's GPU file, baseline/trace.h) for a median per iteration now median
 * at SM clock mhz (0: unknown); or that no entry or trace holds an
 * earlier one. Nothing for host work, without a baseline directory, or
 * with a malformed file (a check says what is wrong with it). Never ends
 * the test; never fails. */
void perf__bldoor_explain(const perf_workload *w, double median, unsigned mhz);

/* How a check's samples were taken beside perfgate's host reference
 * (worker/sample/inband.h); a claim's measurements have none (NULL). */
typedef struct perf__bldoor_inband {
  perf__inband *ib;
  int on_all; /* too few samples beside readings within the band: decided on all */
  perf__reference_launcher *launch; /* room for the launch reference, read beside a
                               launch-bound workload's batches (baseline/blrule.h) */
} perf__bldoor_inband;

/* A BASELINE check's measurement: median and MAD per iteration, samples,
 * their SM clock, and perfgate's launch reference read beside them
 * (seconds per launch; 0 none). */
typedef struct perf__bldoor_sampled {
  double median, mad;
  long n;
  perf__baseline_mhz clk;
  double launch_s;
} perf__bldoor_sampled;

/* w's entry (the running test's, with the sweep point) in this machine's
 * file, or NULL. A malformed file ends the test as ERROR. */
const perf__baseline_entry *perf__bldoor_entry(const perf_workload *w);

/* The band of the host reference's readings for a check of w (0 for an
 * update, or without the reference's entry in the file: every batch
 * kept). A malformed file ends the test as ERROR. */
double perf__bldoor_host_band(const perf_workload *w);

/* When another process used the GPU during w's last measurement (its
 * shared_n samples or rounds, cotenant.h): with --update-baselines the
 * test ends as ERROR, nothing recorded from a shared GPU; otherwise
 * returns 1 with rec's shared member saying when and who (the verdict
 * line head's record renders) and why[len] the record's message's
 * cause (" (another process used the GPU, and it was still there as the
 * claim ended)": PERF__CONFIRM_STILL_SHARED, the supervisor then runs no
 * second attempt beside it; "" when it left). Returns 0 when it was not
 * shared. */
int perf__bldoor_shared(const perf_workload *w, const char *head, perf__claimrec_baseline *rec,
                        char *why, size_t len);

/* What a check of a measurement against its entry gives: its record's
 * members, from which its verdict line is rendered (record/verdictline.h),
 * and what the lines after that line need. */
typedef struct perf__bldoor_checked {
  perf__claimrec_baseline rec;        /* its strings malloc'd (owned) */
  const char *skipped;                /* a SKIP's cause */
  const perf__baseline_entry *entry;  /* the entry it was judged against (NULL: none) */
  double measured;                    /* the median as measured, before scaling */
  unsigned mhz;                       /* the SM clock of its samples (0: unknown) */
  int slower;                         /* slower than the entry: what changed follows */
} perf__bldoor_checked;

/* A BASELINE claim's check of w's measurement s against its entry, for
 * the claim headed head (host: the host's load before it; ibc: how an
 * in-band check sampled, or NULL), into out. Returns the outcome, or SKIP
 * with out->skipped saying why (no entry, another machine's file, another
 * card the rule does not decide on: said in a line). Ends the test as
 * ERROR when the file is malformed or the entry was measured with another
 * clock. */
perf_outcome perf__bldoor_check(perf_workload *w, const char *head, const perf__bldoor_sampled *s,
                                const perf__hostload *host, const perf__bldoor_inband *ibc,
                                perf__bldoor_checked *out);

/* The lines after a check's verdict line: w's throughput, and what changed
 * in its GPU work when it was slower (nothing without an entry). Never
 * fails. */
void perf__bldoor_after(const perf_workload *w, const perf__bldoor_checked *k);

/* With --update-baselines: records s as w's entry (host_ref: perfgate's
 * host reference as read between its batches, 0 none). A malformed file
 * ends the test as ERROR. */
void perf__bldoor_record(const perf_workload *w, const perf__bldoor_sampled *s, double host_ref);

#endif
