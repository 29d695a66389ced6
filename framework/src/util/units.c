/* units.c — human-readable numbers for reports. */
/* Durations with units, counts with their noun or grouped by thousands, and
 * a line built piece by piece. */
#include "util/units.h"

#include <math.h>
#include <stdarg.h>
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

/* Never fails; see units.h. */
char *perf__units_count(char *buf, size_t len, double n)
{
  char digits[32];
  size_t used = 0;
  if (!(n >= 0 && n <= 1e18)) {
    snprintf(buf, len, "n/a");
    return buf;
  }
  size_t k = (size_t)snprintf(digits, sizeof digits, "%.0f", n);
  for (size_t i = 0; i < k; i++) {
    if (i && (k - i) % 3 == 0) perf__units_append(buf, len, &used, ",");
    perf__units_append(buf, len, &used, "%c", digits[i]);
  }
  return buf;
}

/* See units.h. */
void perf__units_append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
  if (*used >= len) return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(buf + *used, len - *used, fmt, ap);
  va_end(ap);
  *used = k < 0 ? len : *used + (size_t)k;
}
