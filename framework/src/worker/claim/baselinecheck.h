/* baselinecheck.h — baseline checks in the worker, against this machine's file. */
/* Measurements are compared with the file's entries, or recorded for it. */
#ifndef PERF_BASELINECHECK_H
#define PERF_BASELINECHECK_H

#include "baseline/baseline.h"
#include "perfgate.h"
#include "worker/sample/calibrate.h"
#include "worker/claim/compare.h"

/* A workload measured by a ratio claim (median, MAD, samples; clk: the SM
 * clock of its samples; host: the host's load before the measurement, or
 * NULL; launch_s: perfgate's launch reference read beside its samples,
 * seconds per launch, 0 none: baseline/blrule.h's launch-normalized entries): recorded with --update-baselines, compared with
 * --baseline-check=all (when its entry exists; a FAIL is counted as a
 * claim; the line says what the SM clock says, perf__baseline_clock_note).
 * Ends the test as ERROR when this machine's baseline file is malformed,
 * or its entry was measured with another clock. */
void perf__baselinecheck_measured(perf_workload *w, double median, double mad, long samples,
                                  perf__baseline_mhz clk, const perf__hostload *host,
                                  double launch_s);
/* Both workloads of a comparison m decided (once when a == b), with the SM
 * clock of each one's samples in m's record, as perf__baselinecheck_measured
 * (and failing as it does). */
void perf__baselinecheck_pair(perf_workload *a, perf_workload *b, const perf__compare_result *m);
/* A ratio claim's measured ratio: recorded with --update-baselines.
 * Never fails (a ratio that is not a finite number > 0 is not recorded). */
void perf__baselinecheck_ratio(perf_workload *any, const char *claim, double ratio);

/* The work count of w (the running test's entry, with the sweep point)
 * in this GPU's baseline file, or NULL with why[len] saying why none: no
 * file, another machine's file, no count in it. A malformed file ends the
 * test as ERROR. */
const perf__baseline_work *perf__baselinecheck_work(const perf_workload *w, char *why, size_t len);
/* With --update-baselines: records one call's counted work of w (warp
 * instructions, DRAM bytes read) as a W record of this GPU's file
 * (supervisor/rebaseline.h). A malformed file ends the test as ERROR. */
void perf__baselinecheck_record_work(const perf_workload *w, double insts, double dram_read);

/* A baseline check's head, "BASELINE(name) at file:line", with the sweep
 * point's tag inside a sweep, into buf[len]. Returns buf; never fails
 * (truncates). */
char *perf__baselinecheck_head(char *buf, size_t len, const char *name, const char *file, int line);

/* With --update-baselines, records calibration work cal of peak (of type t
 * for math; its record o, as a speed-of-light claim measured it) in this
 * machine's file as the entry PERF__BL_PEAK_PREFIX + "dram", "link" (or "link_h2d", "link_d2h") or the
 * type + "_" + clock of the test "perfgate", with its declared work: the achievable
 * peak that reports outside such claims give shares of. Nothing
 * otherwise. A malformed file ends the test as ERROR. */
void perf__baselinecheck_calibration(const perf_workload *cal, perf__calibrate_peak peak,
                                     perf_flop_type t, const perf__claimrec_workload *o);

/* The peaks measured on this machine, from its GPU file's calibration
 * entries for clock (measured_dram, measured_math, measured_from: "..."),
 * into o, w's record, where o declares work and has none measured in the
 * same rounds; nothing for host work or where the file has none. A
 * malformed file ends the test as ERROR. */
void perf__baselinecheck_peaks(perf__claimrec_workload *o, const perf_workload *w,
                               const char *clock);

/* Detail lines for a claim that failed: what changed in w's GPU work
 * (the routing pass's trace now against the trace in its entry of this
 * machine's GPU file, baseline/trace.h) for a median per iteration now median
 * at SM clock mhz (0: unknown); or that no entry or trace holds an
 * earlier one. Nothing for host work, without a baseline directory, or
 * with a malformed file (a check says what is wrong with it). Never ends
 * the test; never fails. */
void perf__baselinecheck_explain(const perf_workload *w, double median, unsigned mhz);

#endif
