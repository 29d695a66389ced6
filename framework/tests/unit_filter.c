/* unit_filter.c — test filters: globs, GoogleTest's positive and negative patterns. */
/* Opt-in tests are named by their suite. */
#include <math.h>
#include <string.h>
#include <stdarg.h>

#include "util/filter.h"
#include "selftest.h"

static int glob(const char *p, const char *s) { return perf__filter_glob(p, p + strlen(p), s); }

ST_TEST(glob_matching)
{
  ST_CHECK(glob("*", ""));
  ST_CHECK(glob("*", "a.b"));
  ST_CHECK(glob("a.*", "a.b"));
  ST_CHECK(!glob("a.*", "b.a"));
  ST_CHECK(glob("?.b", "a.b"));
  ST_CHECK(!glob("?.b", "ab.b"));
  ST_CHECK(glob("*x*y*", "axxbyc"));
  ST_CHECK(!glob("*x*y*", "ayx"));
  ST_CHECK(glob("a**b", "ab"));
  ST_CHECK(!glob("", "a"));
  ST_CHECK(glob("", ""));
}

ST_TEST(gtest_filter_semantics)
{
  ST_CHECK(perf__filter_match(NULL, "s.t"));
  ST_CHECK(perf__filter_match("", "s.t"));
  ST_CHECK(perf__filter_match("s.*", "s.t"));
  ST_CHECK(!perf__filter_match("s.*", "x.t"));
  ST_CHECK(perf__filter_match("x.*:s.*", "s.t"));
  ST_CHECK(!perf__filter_match("s.*-s.t", "s.t"));
  ST_CHECK(perf__filter_match("s.*-s.t", "s.u"));
  ST_CHECK(perf__filter_match("-s.t", "s.u"));
  ST_CHECK(!perf__filter_match("-s.t:x.*", "x.y"));
  ST_CHECK(perf__filter_match("*-*.slow", "a.fast"));
  ST_CHECK(!perf__filter_match("*-*.slow", "a.slow"));
  ST_CHECK(!perf__filter_match("s.t", "s.tt")); /* whole-name match */
}

/* An opt-in test is selected only by a positive pattern that names its
 * suite without a wildcard. */
ST_TEST(opt_in_tests_need_their_suite_named)
{
  ST_CHECK(perf__filter_explicit("faults.*", "faults.hang"));
  ST_CHECK(perf__filter_explicit("faults.hang", "faults.hang"));
  ST_CHECK(perf__filter_explicit("x.*:faults.h*", "faults.hang"));
  ST_CHECK(perf__filter_explicit("faults.*:*", "faults.hang"));
  ST_CHECK(!perf__filter_explicit(NULL, "faults.hang"));
  ST_CHECK(!perf__filter_explicit("", "faults.hang"));
  ST_CHECK(!perf__filter_explicit("*", "faults.hang"));
  ST_CHECK(!perf__filter_explicit("*.*", "faults.hang"));
  ST_CHECK(!perf__filter_explicit("f*.*", "faults.hang"));
  ST_CHECK(!perf__filter_explicit("fault?.hang", "faults.hang"));
  ST_CHECK(!perf__filter_explicit("faults.*-faults.hang", "faults.hang"));
  ST_CHECK(!perf__filter_explicit("-x.*", "faults.hang"));
  ST_CHECK(!perf__filter_explicit("faults.*", "other.hang"));
}
