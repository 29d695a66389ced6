/* unit_units.c — number formatting: times in their unit, counts by thousands, n/a otherwise. */
#include <math.h>
#include <string.h>
#include <stdarg.h>

#include "util/units.h"
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

/* A count in whole numbers grouped by thousands, up to 1e18; n/a beyond,
 * below 0 and for NaN; truncated to the buffer. */
ST_TEST(count_formatting)
{
  char b[32];
  ST_STR(perf__units_count(b, sizeof b, 0), "0");
  ST_STR(perf__units_count(b, sizeof b, 999), "999");
  ST_STR(perf__units_count(b, sizeof b, 1000), "1,000");
  ST_STR(perf__units_count(b, sizeof b, 4194304), "4,194,304");
  ST_STR(perf__units_count(b, sizeof b, 123456789012345), "123,456,789,012,345");
  ST_STR(perf__units_count(b, sizeof b, 1e18), "1,000,000,000,000,000,000");
  ST_STR(perf__units_count(b, sizeof b, 2.6), "3");
  ST_STR(perf__units_count(b, sizeof b, 2e18), "n/a");
  ST_STR(perf__units_count(b, sizeof b, -1), "n/a");
  ST_STR(perf__units_count(b, sizeof b, NAN), "n/a");
  ST_STR(perf__units_count(b, 6, 1234567), "1,234");
}
