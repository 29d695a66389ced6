/* rebaseline.h — --update-baselines in the supervisor: measurements from 5 runs (PERF__UPDATE_RUNS) merged into each machine's file. */
#ifndef PERF_REBASELINE_H
#define PERF_REBASELINE_H

#include <stddef.h>

/* An update's runs; then up to PERF__UPDATE_RERUNS more of a test one of
 * whose entries had exactly one run unlike the others (a disturbed run, or
 * a slow mode the workload really has: the re-runs tell, see
 * perf__rebaseline_wants_rerun). */
enum { PERF__UPDATE_RUNS = 5, PERF__UPDATE_RERUNS = 2 };

typedef struct perf__rebaseline_runs perf__rebaseline_runs;

/* NULL when out of memory. */
perf__rebaseline_runs *perf__rebaseline_new(void);
void perf__rebaseline_free(perf__rebaseline_runs *u);

/* Takes one record line from a worker during run `run` (0-based; from
 * PERF__UPDATE_RUNS on, a re-run):
 * "F\tpath\tkey\tvalue...", "E\tpath\ttest\tworkload\tclock\tmedian\tmad\tsamples\t
 * mhz\tmin_mhz\tmax_mhz[\tqueue_share[\thost_ref\tgpu_ref]]" (the SM clock of the
 * samples, 0: unknown; the events clock's queueing share; perfgate's
 * references timed in that process, base/blrule.h, 0: not measured;
 * then, when the workload declared its work, "\tbytes_read\tbytes_written\t
 * flops\tflop_type"), "T\tpath\ttest\tworkload\tJSON" (the trace of
 * that measurement, base/trace.h; the last run's is kept) or
 * "R\tpath\ttest\tclaim\tratio". Returns 0, PERF__EPROTO or PERF__ENOMEM. */
int perf__rebaseline_take(perf__rebaseline_runs *u, const char *line, int run);

/* Merges into each file: an entry measured in every run is judged by
 * base/blrule.h (runs left out for a low SM clock or as outliers, each
 * named in the table) and gets the clean runs' median, their values
 * (runs_s), the median of their spreads, their summed samples and SM clock
 * (perf__baseline_mhz_merge) and the tolerance their spread allows. An
 * entry whose runs disagree (more than one left out), whose tolerance is
 * over the ceiling or that was launch-bound is not written unless accept_wide: the old entry stays, and
 * it is counted (perf__rebaseline_flagged). Entries not re-measured are
 * kept. Prints a table with every run and writes each file atomically.
 * Returns 0 (flagged entries included), or PERF__EBADFILE (an existing
 * file is malformed: nothing written) / PERF__EIO / PERF__EPROTO, with the
 * reason in err. */
int perf__rebaseline_write(perf__rebaseline_runs *u, int accept_wide, char *err, size_t len);

/* 1 when test should run again as run `run` (PERF__UPDATE_RUNS or later):
 * an entry of it, measured in every run so far, has exactly one run left
 * out. Re-runs that agree with the others leave that run out for good; one
 * that is far too makes two, and the runs disagree (the entry is flagged).
 * Never fails. */
int perf__rebaseline_wants_rerun(const perf__rebaseline_runs *u, const char *test, int run);

/* How many entries the last perf__rebaseline_write did not write, and
 * their "test / workload" names (truncated) in *names. Never fails. */
size_t perf__rebaseline_flagged(const perf__rebaseline_runs *u, const char **names);

#endif
