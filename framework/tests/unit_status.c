/* unit_status.c — the outcome and error tables: words and messages, an unknown value named as such. */
#include <math.h>
#include <string.h>
#include <stdarg.h>

#include "base/status.h"
#include "selftest.h"

ST_TEST(status_table)
{
  ST_CHECK(!strcmp(perf__status_word(PERF_OUTCOME_PASS), "PASS"));
  ST_CHECK(!strcmp(perf__status_word(PERF_OUTCOME_INCONCLUSIVE), "INCONCLUSIVE"));
  ST_CHECK(!strcmp(perf__status_word((perf_outcome)99), "?"));
  ST_CHECK(!strcmp(perf__status_strerror(PERF__ENOMEM), "out of memory"));
  ST_CHECK(!strcmp(perf__status_strerror(12345), "unknown error"));
}
