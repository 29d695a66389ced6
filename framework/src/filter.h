/* filter.h — GoogleTest-style test filters: "Pos[:Pos][-Neg[:Neg]]" with * and ? globs. */
#ifndef PERF_FILTER_H
#define PERF_FILTER_H

/* 1 when name matches filter: it matches one positive pattern (none given
 * means "*") and no negative pattern. A NULL filter matches everything. */
int perf__filter_match(const char *filter, const char *name);
/* 1 when pattern [p, end) matches all of s; '*' any run, '?' one char. */
int perf__glob(const char *p, const char *end, const char *s);

#endif
