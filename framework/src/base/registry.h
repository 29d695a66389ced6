/* registry.h — the registered tests, in registration order, and their full names. */
#ifndef PERF_REGISTRY_H
#define PERF_REGISTRY_H

#include <stddef.h>

#include "perfgate.h"

/* First registered test (then ->next); NULL when there is none. */
const perf__test *perf__registry_all(void);
/* Writes "suite.name" into buf (truncated to len); returns buf. */
char *perf__registry_fullname(const perf__test *t, char *buf, size_t len);
/* The test called full ("suite.name"), or NULL. */
const perf__test *perf__registry_find(const char *full);
/* Returns the second of two tests sharing a full name, or NULL. */
const perf__test *perf__registry_duplicate(const perf__test **first);

#endif
