/* progname.h — the name at the head of every message: argv[0]'s basename, set once by perf_main. */
#ifndef PERF_PROGNAME_H
#define PERF_PROGNAME_H

/* Sets the name from argv0 (its basename: "./run-mytests" gives
 * "run-mytests", as GoogleTest and most Unix tools say it); argv0 must
 * live as long as the process (argv does). NULL or "" keeps the name.
 * perf_main calls it first. Never fails. */
void perf__progname_set(const char *argv0);

/* The name messages start with ("NAME: ..."): the one set, or "perfgate"
 * where perf_main did not run (the library in another program, as the
 * Python package loads it). Never fails. */
const char *perf__progname(void);

#endif
