/* rebaseline.h — --update-baselines in the supervisor: runs merged into each machine's file. */
#ifndef PERF_REBASELINE_H
#define PERF_REBASELINE_H

#include <stddef.h>

#include "baseline/blrule.h"

/* An update runs every test PERF__UPDATE_RUNS times, then more processes
 * of the tests one of whose entries has not settled (baseline/blrule.h:
 * perf__blrule_settled: a run left out, runs that disagree, a tolerance
 * near the ceiling), one fresh worker each, until each has, or an entry
 * has --update-runs runs (at most PERF__BL_MAX_RUNS: what runs_s holds),
 * or the extra runs would take longer than --update-budget seconds (the
 * defaults: cli/options.h). */
enum { PERF__UPDATE_RUNS = PERF__BLR_RUNS };

/* How perf__rebaseline_write writes (bits). */
enum {
  PERF__REBASELINE_ACCEPT_WIDE = 1, /* --accept-wide: entries whose runs disagree, too wide,
                                       host-paced, from all runs where they disagree */
  PERF__REBASELINE_FORCE = 2        /* --force: the entries of tests that failed too */
};

typedef struct perf__rbruns perf__rebaseline_runs; /* supervisor/rbruns.h */

/* An update whose entries take at most max_runs runs (PERF__UPDATE_RUNS..
 * PERF__BL_MAX_RUNS; others are held to that range). NULL when out of
 * memory. */
perf__rebaseline_runs *perf__rebaseline_new(int max_runs);
void perf__rebaseline_free(perf__rebaseline_runs *u);

/* Takes one record line from a worker during run `run` (0-based, below
 * max_runs; from PERF__UPDATE_RUNS on, a run of the tests that need more):
 * "F\tpath\tkey\tvalue...", "E\tpath\ttest\tworkload\tclock\tmedian\tmad\tsamples\t
 * mhz\tmin_mhz\tmax_mhz[\tqueue_share[\thost_ref\tgpu_ref]]" (the SM clock of the
 * samples, 0: unknown; the events clock's queueing share; perfgate's
 * references timed in that process, baseline/blrule.h, 0: not measured;
 * then, when the workload declared its work, "\tbytes_read\tbytes_written\t
 * flops\tflop_type"), "T\tpath\ttest\tworkload\tJSON" (the trace of
 * that measurement, baseline/trace.h; the last run's is kept),
 * "R\tpath\ttest\tclaim\tratio" or "W\tpath\ttest\tworkload\tinsts\tdram_read"
 * (what one call of the workload executed on the GPU, counted untimed by
 * CUPTI's range profiler: sm__inst_executed.sum, warp instructions, >= 1,
 * and dram__bytes_read.sum, bytes, >= 0, both %.17g; one per run, for
 * PERF_EXPECT_SAME_WORK claims). Returns 0, PERF__EPROTO (a malformed
 * record: for W, not six fields or a count out of range) or PERF__ENOMEM. */
int perf__rebaseline_take(perf__rebaseline_runs *u, const char *line, int run);

/* Notes that test failed (FAIL or ERROR) in run `run`, why: no entry,
 * ratio or work count of it is written (its old ones stay) unless PERF__REBASELINE_FORCE,
 * and it is named in the summary. The first failure of a test is kept.
 * Never fails: without memory every test counts as failed. */
void perf__rebaseline_failed(perf__rebaseline_runs *u, const char *test, int run, const char *why);

/* Merges into each file: an entry measured in every run is judged by
 * baseline/blrule.h (runs left out for a low SM clock or as outliers, each
 * named in the table; a host-paced entry's tolerance floored) and gets the
 * clean runs' median, their values (runs_s), the median of their spreads,
 * their summed samples and SM clock (perf__baseline_mhz_merge) and the
 * tolerance their spread allows. An entry of a test that failed, one whose
 * tolerance is over the line it is written under (PERF__BLR_WRITE_CEILING
 * in a GPU's file, PERF__BLR_CEILING in a host's), and a launch-bound or
 * submit-clock one without launch readings in every run (baseline/blrule.h:
 * launch-normalized entries) are not written (how: PERF__REBASELINE_* bits): the old entry
 * stays, and it is counted (perf__rebaseline_flagged; a failed test's are
 * not: they are the test's). A ratio gets its runs' median. A work count
 * gets the median run's counts (counted as an entry written) when its
 * runs' instruction counts agree within PERF__BL_WORK_TOLERANCE (highest /
 * lowest - 1); otherwise it is not written, the old one stays, and the
 * summary counts it ("counts differ between runs"; not flagged: no option
 * writes it). Entries, ratios and work counts not re-measured are kept. Prints a
 * table per file (each entry's clock, its runs, whether +5 % and +10 %
 * would be caught) and a summary line, and writes each file atomically.
 * Returns 0 (flagged entries included), or PERF__EBADFILE (an existing
 * file is malformed: nothing written) / PERF__EIO / PERF__EPROTO, with the
 * reason in err. */
int perf__rebaseline_write(perf__rebaseline_runs *u, unsigned how, char *err, size_t len);

/* 1 when test should run again as run `run` (PERF__UPDATE_RUNS or later):
 * it did not fail, and an entry of it (ratios and work counts aside),
 * measured in every run so far, has
 * not settled (baseline/blrule.h: perf__blrule_settled); "workload: why" of
 * the first such entry into why[len]. Never fails. */
int perf__rebaseline_wants_more(const perf__rebaseline_runs *u, const char *test, int run,
                                char *why, size_t len);

/* How many entries the last perf__rebaseline_write did not write for
 * their runs, and their "test / workload (why)" names (truncated) in
 * *names. Never fails. */
size_t perf__rebaseline_flagged(const perf__rebaseline_runs *u, const char **names);

/* How many tests failed (perf__rebaseline_failed) and their names,
 * "a, b" (truncated), in *names. Never fails. */
size_t perf__rebaseline_failed_tests(const perf__rebaseline_runs *u, const char **names);

#endif
