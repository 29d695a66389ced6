/* lastruns.h — the Markdown section comparing this run with its GPU's last N recorded runs. */
#ifndef PERF_LASTRUNS_H
#define PERF_LASTRUNS_H

#include <stddef.h>
#include <stdio.h>

/* Which history, which run, how far back. */
typedef struct perf__lastruns {
  const char *location; /* --history */
  long long run;        /* this run's id */
  const char *gpu;      /* its GPU */
  size_t last;          /* how many earlier runs (10) */
} perf__lastruns;

/* Writes "## Compared with the last N runs of this GPU": each workload
 * median and ratio this run measured that earlier runs of the same GPU
 * measured too, now against their median and range, those outside the
 * range first; at most room bytes. A history that cannot be read is said
 * in the section. Never fails (stream errors show in ferror(f)). */
void perf__lastruns_markdown(FILE *f, const perf__lastruns *h, long room);

#endif
