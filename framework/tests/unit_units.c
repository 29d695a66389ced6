/* unit_units.c — number formatting: a time in its unit, n/a for what is not one. */
#include <math.h>
#include <string.h>
#include <stdarg.h>

#include "base/units.h"
#include "selftest.h"

ST_TEST(time_formatting)
{
  char b[32];
  ST_CHECK(!strcmp(perf__units_time(b, sizeof b, 17.95e-6), "17.95 us"));
  ST_CHECK(!strcmp(perf__units_time(b, sizeof b, 1.5e-3), "1.500 ms"));
  ST_CHECK(!strcmp(perf__units_time(b, sizeof b, 2.5), "2.500 s"));
  ST_CHECK(!strcmp(perf__units_time(b, sizeof b, 250e-9), "250.0 ns"));
  ST_CHECK(!strcmp(perf__units_time(b, sizeof b, 0), "0.000 ns"));
  ST_CHECK(!strcmp(perf__units_time(b, sizeof b, NAN), "n/a"));
  ST_CHECK(!strcmp(perf__units_time(b, sizeof b, -1), "n/a"));
}
