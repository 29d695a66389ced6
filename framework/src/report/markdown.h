/* markdown.h — --markdown: a summary table for a CI step summary, failures first, under 1 MB. */
#ifndef PERF_MARKDOWN_H
#define PERF_MARKDOWN_H

#include <stddef.h>
#include <stdio.h>

#include "util/registry.h"
#include "report/lastruns.h"
#include "report/result.h"

/* Writes the summary of the results s: failures and errors first, then
 * the rest in run order, rows stopping before the file would pass 1 MB;
 * the headroom table when a claim ran more than once; with h (a run
 * recorded in a history), how it compares with the last runs of its GPU
 * (report/lastruns.h). f must be seekable (ftell). Never fails (stream
 * errors show in ferror(f)). */
void perf__markdown_write(FILE *f, const perf__result_set *s, const perf__lastruns *h);

#endif
