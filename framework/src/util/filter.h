/* filter.h — GoogleTest-style test filters: "Pos[:Pos][-Neg[:Neg]]" with * and ? globs. */
#ifndef PERF_FILTER_H
#define PERF_FILTER_H

/* 1 when name matches filter: it matches one positive pattern (none given
 * means "*") and no negative pattern. A NULL filter matches everything. */
int perf__filter_match(const char *filter, const char *name);
/* 1 when filter selects name and one of its positive patterns names the
 * suite without a wildcard ("faults.*", "faults.hang"; not "*" or "f*.*"):
 * how an opt-in test (PERF_TEST_OPT_IN) is selected. 0 for a NULL filter. */
int perf__filter_explicit(const char *filter, const char *name);
/* 1 when pattern [p, end) matches all of s; '*' any run, '?' one char. */
int perf__filter_glob(const char *p, const char *end, const char *s);

#endif
