/* rebaseline.h — --update-baselines in the supervisor: measurements from 5 runs (PERF__UPDATE_RUNS) merged into each machine's file. */
#ifndef PERF_REBASELINE_H
#define PERF_REBASELINE_H

#include <stddef.h>

enum { PERF__UPDATE_RUNS = 5 };

typedef struct perf__blu perf__blu;

/* NULL when out of memory. */
perf__blu *perf__rebaseline_new(void);
void perf__rebaseline_free(perf__blu *u);

/* Takes one record line from a worker during run `run` (0-based):
 * "F\tpath\tkey\tvalue...", "E\tpath\ttest\tworkload\tclock\tmedian\tmad\tsamples\t
 * mhz\tmin_mhz\tmax_mhz" (the SM clock of the samples; 0: unknown) or
 * "R\tpath\ttest\tclaim\tratio". Returns 0, PERF__EPROTO or PERF__ENOMEM. */
int perf__rebaseline_take(perf__blu *u, const char *line, int run);

/* Merges into each file: entries measured in every run get the median of
 * the runs' medians, the median of their spreads, the summed samples, the
 * SM clock (perf__baseline_mhz_merge), and a
 * learned tolerance max(5 %, 4 x the between-run spread); entries not
 * re-measured are kept. Prints a table of what moved and writes each file
 * atomically. Returns 0, or PERF__EBADFILE (an existing file is malformed:
 * nothing written) / PERF__EIO, with the reason in err. */
int perf__rebaseline_write(perf__blu *u, char *err, size_t len);

#endif
