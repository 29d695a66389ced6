/* units.h — human-readable numbers for reports. */
/* Durations with units, counts with their noun or grouped by thousands, and
 * a line built piece by piece. */
#ifndef PERF_UNITS_H
#define PERF_UNITS_H

#include <stddef.h>

/* Writes seconds as "17.95 us", "1.234 ms", "2.50 s" (4 significant digits);
 * "n/a" for NaN or negative values. Returns buf; truncates to len. */
char *perf__units_time(char *buf, size_t len, double seconds);

/* The noun a count takes: one when n is 1, else many ("1 sample", "0 samples",
 * "2 entries"): every "N things" the runner prints agrees with N. Never fails. */
const char *perf__units_noun(long long n, const char *one, const char *many);

/* Writes a count rounded to a whole number, its digits grouped by
 * thousands: "123,456,789" (a work count's instructions, bytes); "n/a" for
 * NaN, negative values and more than 1e18. Returns buf; truncates to len. */
char *perf__units_count(char *buf, size_t len, double n);

/* Appends printf-style text to buf[len] at *used (the text so far); stops
 * at the end. Never fails (truncates). */
void perf__units_append(char *buf, size_t len, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
