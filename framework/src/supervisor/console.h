/* console.h — the console report: a line per test, the numbers behind each verdict, the summary. */
#ifndef PERF_CONSOLE_H
#define PERF_CONSOLE_H

#include <stddef.h>

#include "cli/options.h"
#include "report/result.h"

void perf__console_setup(perf__options_color color, int verbose);
/* "[k/total] NAME …" on a terminal, erased by the result line. */
void perf__console_progress(const char *name, size_t k, size_t total);
void perf__console_info(const char *line);
/* Prints "note  line" (whatever the verbosity). */
void perf__console_notice(const char *line);
void perf__console_result(const perf__result *r);
/* The tests that did not pass again, each once, in the order of their
 * first such run ("FAIL  s.t: FAIL in 2 of 3 runs: the last one's
 * reason" when a test ran more than once, as with --repeat), then
 * "N passed, N failed, N skipped" as the last line, which counts runs:
 * with --repeat=N each test counts N times. */
void perf__console_summary(const perf__result *r, size_t n);

#endif
