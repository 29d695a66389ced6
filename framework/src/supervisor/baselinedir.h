/* baselinedir.h — --check-baselines: every baseline file in the directory read and validated, without running a test. */
#ifndef PERF_BASELINEDIR_H
#define PERF_BASELINEDIR_H

#include <stdio.h>

/* Loads every *.yaml file of dir, in name order, with the baseline
 * loader's strict checks (schema, types, positions), printing one line per
 * valid file to out and a total. Returns 0 when all are valid (or there is
 * none: it says so), 2 after "file:line:column: problem" on err for the
 * first malformed or unreadable file, or when dir cannot be read. */
int perf__baselinedir_check(const char *dir, FILE *out, FILE *err);

#endif
