/* units.h — human-readable numbers for reports: durations with units. */
#ifndef PERF_UNITS_H
#define PERF_UNITS_H

#include <stddef.h>

/* Writes seconds as "17.95 us", "1.234 ms", "2.50 s" (4 significant digits);
 * "n/a" for NaN or negative values. Returns buf; truncates to len. */
char *perf__units_time(char *buf, size_t len, double seconds);

#endif
