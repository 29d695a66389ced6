/* clock.h — the clocks' names, the host monotonic clock and the measured floors of the host and event timers. */
#ifndef PERF_CLOCK_H
#define PERF_CLOCK_H


/* The clock name used in every report ("events", "wall", "submit",
 * "device", "cold") of a perf_clock value. Never fails. */
const char *perf__clock_name(int clock);

/* Seconds on CLOCK_MONOTONIC; never fails on Linux. */
double perf__clock_now(void);

/* What a timer can resolve: floor = median cost of an empty timed region,
 * step = smallest non-zero difference it reported. */
typedef struct perf__floor {
  double floor_s;
  double step_s;
  int measured; /* 0 until measured */
} perf__floor;

/* Measures the host clock's floor (back-to-back reads). Never fails. */
void perf__clock_host_floor(perf__floor *f);

#endif
