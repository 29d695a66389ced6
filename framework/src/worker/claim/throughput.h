/* throughput.h — a workload's declared work in the worker: checked, recorded, shown by its time. */
/* The claim record holds it with the peaks it is a share of. */
#ifndef PERF_THROUGHPUT_H
#define PERF_THROUGHPUT_H

#include "record/claimrec.h"
#include "baseline/peaks.h"
#include "perfgate.h"

/* w's declared work (its public members). Never fails. */
perf__peaks_work perf__throughput_work(const perf_workload *w);

/* Ends the test as ERROR, naming head and w, when w's declared work is
 * not what perfgate.h says: a member negative or not a number, a
 * flop_type that is not a perf_flop_type, flops without a flop_type. */
void perf__throughput_check(const char *head, const perf_workload *w);

/* w's work and the spec peaks it is a share of (for GPU work only) into
 * its record o: DRAM's, or the host link's when o's trace (taken before)
 * spends over half its device time in copies between host and device;
 * math's for its flops. A speed-of-light claim adds the peak it measured
 * (solight.c). Nothing when w declares no work. Never fails (without
 * memory the basis text is left out). */
void perf__throughput_record(perf__claimrec_workload *o, const perf_workload *w);

/* For a workload that declared work, a detail line under its claim's
 * verdict line: "  name: 2.71 TB/s [2.69 TB/s, 2.73 TB/s] (events clock);
 * 80.9 % of the spec DRAM peak 3.35 TB/s (...); 89.0 % of the measured
 * peak ..." from its record o (median and interval, peaks), with a
 * warning when its bytes may come from L2 on a clock that keeps L2 warm.
 * Nothing when it declared none. Never fails. */
void perf__throughput_print(const perf__claimrec_workload *o, const char *clock);

#endif
