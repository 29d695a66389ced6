/* unit_status.c — the outcome and error tables: words, messages, and unknown values named. */
#include <math.h>
#include <string.h>
#include <stdarg.h>

#include "util/status.h"
#include "selftest.h"

ST_TEST(status_table)
{
  ST_CHECK(!strcmp(perf__status_word(PERF_OUTCOME_PASS), "PASS"));
  ST_CHECK(!strcmp(perf__status_word(PERF_OUTCOME_INCONCLUSIVE), "INCONCLUSIVE"));
  ST_CHECK(!strcmp(perf__status_word((perf_outcome)99), "?"));
  for (int o = 0; o < PERF_OUTCOME_COUNT; o++) /* each word names its outcome back */
    ST_EQ(perf__status_outcome(perf__status_word((perf_outcome)o)), o);
  ST_EQ(perf__status_outcome("GREAT"), PERF_OUTCOME_COUNT);
  ST_EQ(perf__status_outcome("pass"), PERF_OUTCOME_COUNT);
  ST_EQ(perf__status_outcome(NULL), PERF_OUTCOME_COUNT);
  ST_CHECK(!strcmp(perf__status_strerror(PERF__ENOMEM), "out of memory"));
  ST_CHECK(!strcmp(perf__status_strerror(12345), "unknown error"));
}
