/* trendreport.h — --trend: the history's series per GPU and their change points. */
/* On the console, as charts (--plots) and as a page (--html). */
#ifndef PERF_TRENDREPORT_H
#define PERF_TRENDREPORT_H

#include "cli/options.h"

/* Reads cli->history (nothing is run or written there), finds each series'
 * change points and prints them per GPU: the commit where the shift
 * began, the values before and after, its size and p-value; with
 * --verbose every series. With cli->plots, one SVG per series; with
 * cli->html, one page with the change points first. Returns 0, or 2 after
 * a message (the store cannot be read, no series matches the filter, a
 * chart or page cannot be written). */
int perf__trendreport_run(const perf__options_cli *cli);

#endif
