/* clock.h — clock names, the host monotonic clock, the host and event timers' measured floors. */
#ifndef PERF_CLOCK_H
#define PERF_CLOCK_H

/* perf_clock and PERF_CLOCK_MAP: perfgate.h's plain-C part, no CUDA header */
#define PERF_ABI_ONLY
#include "perfgate.h"
#undef PERF_ABI_ONLY

/* What the runner needs of each clock of perfgate.h's PERF_CLOCK_MAP (which
 * explains them and names them), one row each, by its PERF_CLOCK_ suffix:
 *   host    its samples are the host's time (a host monotonic clock around
 *           the batch): the host's pace is in them;
 *   events  CUDA events bracket the batch on the workload's stream;
 *   held    the batch is queued behind the blocking kernel (worker/device/
 *           blocker.h), so the host's launch gaps are not in it;
 *   flush   L2 is flushed before each sample;
 *   drain   the wait for the batch's GPU work comes after the clock stops
 *           (the sample's cost in wall time is then watched apart);
 *   batch   the most iterations one sample may hold (1: one per sample;
 *           submit: below the launch queue's depth).
 * A new clock is a row in PERF_CLOCK_MAP, a row here and its sampler in
 * worker/sample/workload.c. */
#define PERF__CLOCK_MAX_BATCH (1L << 24)
#define PERF__CLOCK_MAP(X)                                                  \
  /* clock host ev held flush drain batch */        \
  X(EVENTS, 0, 1, 0, 0, 0, PERF__CLOCK_MAX_BATCH)   \
  X(WALL, 1, 0, 0, 0, 0, PERF__CLOCK_MAX_BATCH)     \
  X(SUBMIT, 1, 0, 0, 0, 1, 256)                     \
  X(DEVICE, 0, 1, 1, 0, 0, PERF__CLOCK_MAX_BATCH)   \
  X(COLD, 0, 1, 1, 1, 0, 1)

/* The clock name used in every report ("events", "wall", "submit",
 * "device", "cold") of a perf_clock value ("auto" for any other). Never
 * fails. */
const char *perf__clock_name(int clock);

/* The perf_clock value named name, or -1 for no clock. Never fails. */
int perf__clock_of_name(const char *name);

/* The table's columns for clock (0 for a value that is not a row: auto).
 * Never fail. */
int perf__clock_host_side(int clock);
int perf__clock_by_events(int clock);
int perf__clock_held(int clock);
int perf__clock_flushes_l2(int clock);
int perf__clock_drains_after(int clock);
/* The batch column; 1 for a value that is not a row. Never fails. */
long perf__clock_max_batch(int clock);
/* 1 when the host's launch pace can be in the clock's samples although
 * the GPU times them (events that are not held): a launch-bound
 * measurement is possible. Never fails. */
int perf__clock_queues_host(int clock);

/* Seconds on CLOCK_MONOTONIC; never fails on Linux. */
double perf__clock_now(void);

/* What a timer can resolve: floor = median cost of an empty timed region,
 * step = smallest non-zero difference it reported. */
typedef struct perf__clock_floor {
  double floor_s;
  double step_s;
  int measured; /* 0 until measured */
} perf__clock_floor;

/* Measures the host clock's floor (back-to-back reads). Never fails. */
void perf__clock_host_floor(perf__clock_floor *f);

#endif
