/* rbruns.h — an update's runs (--update-baselines): each measurement over its runs, and all. */
/* rebaseline.c collects them from the workers' records and writes the
 * files; rbjudge.c judges each entry's runs. */
#ifndef PERF_RBRUNS_H
#define PERF_RBRUNS_H

#include <stddef.h>

#include "baseline/baseline.h"
#include "baseline/blrule.h"
#include "baseline/trace.h"

/* The baseline files one update writes at most (a host's and GPUs'). */
#define PERF__RBRUNS_FILES 4

/* What a measurement is: a workload's time (an entry), a ratio claim's
 * ratio, or what one call of a workload executed on the GPU (a work count,
 * for PERF_EXPECT_SAME_WORK claims). */
typedef enum perf__rbruns_kind { M_ENTRY, M_RATIO, M_WORK } perf__rbruns_kind;

typedef struct perf__rbruns_meas {
  int file;
  char test[200], name[200], clock[16]; /* name: workload or claim */
  perf__rbruns_kind kind;
  double value[PERF__BL_MAX_RUNS], mad[PERF__BL_MAX_RUNS]; /* median (or ratio, or instructions), spread */
  double bytes[PERF__BL_MAX_RUNS];                /* a work count's DRAM bytes read */
  long samples[PERF__BL_MAX_RUNS];
  perf__baseline_mhz clk[PERF__BL_MAX_RUNS];      /* SM clock of each run's samples */
  double queue[PERF__BL_MAX_RUNS];                /* events clock: host's queueing share */
  double ref[PERF__BLR_NREFS][PERF__BL_MAX_RUNS]; /* perfgate's references in that run's
                                            process (0: not measured) */
  int seen[PERF__BL_MAX_RUNS];                    /* runs RUNS.. are the runs of tests that needed more */
  perf__peaks_work work;                 /* its declared work (the last run's) */
  char *trace;                           /* its trace's JSON (the last run's); NULL */
  int traced;                            /* that trace has items */
  perf__blrule_traced what;              /* and what they say (baseline/blrule.h) */
  char kernel[PERF__TRACE_NAME];         /* that trace's longest kernel ("": none) */
} perf__rbruns_meas;

/* An entry's runs judged: baseline/blrule.h's fit, what paces it, its floor. */
typedef struct perf__rbruns_judged {
  perf__blrule_fit f;     /* the floor raised where host-paced or the clock fell */
  perf__blrule_pace pace; /* PERF__BLR_PACE_GPU: not host-paced (or perfgate's reference) */
  double host_tol;        /* perfgate's host reference's tolerance over its processes (0: unknown) */
  double fall;            /* the SM clock's fall during its samples (clock_fall; 0: none) */
  unsigned lo, hi;        /* the SM clock's lowest and highest reading then (MHz) */
  const perf__rbruns_meas *from;       /* the entry whose readings fell so (m, or one of its kernel) */
  double v[PERF__BL_MAX_RUNS], mad[PERF__BL_MAX_RUNS]; /* each run's median and MAD as judged: m's, or
                                        launch-normalized (per_launch) */
  double launch_s;        /* the launch reference they are scaled to (0: not normalized) */
  int gpu_bound;          /* launch-paced, but its trace has the GPU busy for at least
                             PERF__BLR_GPU_PACED of its time: not launch-normalized */
} perf__rbruns_judged;

/* A test that failed in an update's run: none of its entries is written. */
typedef struct perf__rbruns_failure {
  char test[200];
  int run;
  char why[120];
} perf__rbruns_failure;

/* Entries not written for one reason, for the summary. */
typedef struct perf__rbruns_tally {
  const char *word;
  size_t n;
} perf__rbruns_tally;

typedef struct perf__rbruns {
  struct {
    char path[4200];
    perf__baseline fp;
  } files[PERF__RBRUNS_FILES];
  size_t nfiles;
  perf__rbruns_meas *m;
  size_t n, cap;
  int max_runs;        /* the most runs an entry takes */
  unsigned how;        /* PERF__REBASELINE_* of the write */
  perf__rbruns_failure *failed;     /* tests that failed, in the order they did */
  size_t nfailed, cap_failed;
  int failed_all;      /* a failure could not be kept: every test counts as failed */
  char failed_names[600];
  size_t flagged;      /* entries not written (refused: too wide, host-paced, ...) */
  char names[600];     /* the first of them, for the error */
  size_t written;      /* entries written (perfgate's references left out) */
  size_t took[PERF__BL_MAX_RUNS + 1]; /* of those, how many took k runs */
  perf__rbruns_tally no[8];         /* entries not written, by reason */
} perf__rbruns;

#endif
