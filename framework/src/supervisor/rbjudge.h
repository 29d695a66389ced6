/* rbjudge.h — how an update judges each entry's runs: the fit, its pace, the clock's fall. */
#ifndef PERF_RBJUDGE_H
#define PERF_RBJUDGE_H

#include "supervisor/rbruns.h"

/* 1 when m is one of perfgate's reference entries (not a calibration
 * entry of the same test). Never fails. */
int perf__rbjudge_is_reference(const perf__rbruns_meas *m);

/* The runs of m to judge: the RUNS runs, then the more runs it has (in
 * order, none skipped). */
int perf__rbjudge_runs_of(const perf__rbruns_meas *m);

/* The entry the clean runs of m make (j: their values and fit). */
perf__baseline_entry perf__rbjudge_entry_of(const perf__rbruns *u, const perf__rbruns_meas *m, const perf__rbruns_judged *j,
                                     const char *date);

/* Judges m's runs (baseline/blrule.h) into j: the fit (of all runs where
 * the host paces it), and its floor where the host paces it or the clock
 * fell. Returns 0 or PERF__EINVAL (a value that is not a positive
 * number). */
int perf__rbjudge_judge(const perf__rbruns *u, const perf__rbruns_meas *m, perf__rbruns_judged *j);

/* Why the update does not write m's entry (j: its runs judged), or NULL
 * when it does (baseline/blrule.h): up to j->f.line (PERF__BLR_WRITE_CEILING
 * in a GPU's file, WIDE over PERF__BLR_CEILING, from all runs where they
 * disagree; PERF__BLR_CEILING in a host's), never launch-bound or on the
 * submit clock unless launch-normalized or GPU-bound; every entry with
 * accept_wide (--accept-wide), and
 * perfgate's reference entries always (a wide one only explains less);
 * *word gets the reason in a word or two. */
const char *perf__rbjudge_refused(const perf__rbruns_meas *m, const perf__rbruns_judged *j, int accept_wide, const char **word);

/* Prints m's rows of the update table: the entry e (old: the file's, or
 * NULL) with its tolerance, clock, runs and what it catches, each run with
 * why it was left out, what paces it, and, when `no` is the reason it is
 * not written, that. Never fails. */
void perf__rbjudge_print_entry(const perf__rbruns *u, const perf__rbruns_meas *m, const perf__rbruns_judged *j,
                        const perf__baseline_entry *e, const perf__baseline_entry *old,
                        const char *no);

#endif
