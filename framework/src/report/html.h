/* html.h — --html: a self-contained static page: summary, failures first, charts inline. */
#ifndef PERF_HTML_H
#define PERF_HTML_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "report/result.h"

/* Writes the page for results r[0..n) of a run that began at started and
 * exits with code; cmd is the command line (argc words). Nothing is fetched
 * by the page: styles, charts and its one small script are inline. Never
 * fails (stream errors show in ferror(f)). */
void perf__html_write(FILE *f, const perf__result *r, size_t n, time_t started, int code,
                      int argc, char **argv);

#endif
