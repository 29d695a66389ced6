/* units.c — human-readable numbers for reports: durations with units, counts with their noun. */
#include "base/units.h"

#include <math.h>
#include <stdio.h>

/* Never fails; see units.h. */
char *perf__units_time(char *buf, size_t len, double s)
{
  static const struct {
    double scale;
    const char *unit;
  } units[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
  if (!(s >= 0)) {
    snprintf(buf, len, "n/a");
    return buf;
  }
  size_t i = 0;
  while (i + 1 < sizeof units / sizeof units[0] && s < units[i].scale) i++;
  double v = s / units[i].scale;
  int decimals = v >= 100 ? 1 : v >= 10 ? 2 : 3;
  snprintf(buf, len, "%.*f %s", decimals, v, units[i].unit);
  return buf;
}

/* Never fails; see units.h. */
const char *perf__units_noun(long long n, const char *one, const char *many)
{
  return n == 1 ? one : many;
}
