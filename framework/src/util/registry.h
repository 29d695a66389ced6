/* registry.h — the registered tests in registration order, as CUDA-free entries. */
/* Both processes read them. */
#ifndef PERF_REGISTRY_H
#define PERF_REGISTRY_H

#include <stddef.h>

/* One test as PERF_TEST registered it (perfgate.h's perf__test, copied so
 * that the supervisor's side need not include perfgate.h and CUDA's
 * headers with it). */
typedef struct perf__registry_test {
  const char *suite, *name, *file;
  int line;
  int opt_in;          /* PERF_TEST_OPT_IN */
  void (*body)(void);
  struct perf__registry_test *next;
} perf__registry_test;

/* First registered test (then ->next); NULL when there is none. */
const perf__registry_test *perf__registry_all(void);
/* Writes "suite.name" into buf (truncated to len); returns buf. */
char *perf__registry_fullname(const perf__registry_test *t, char *buf, size_t len);
/* The test called full ("suite.name"), or NULL. */
const perf__registry_test *perf__registry_find(const char *full);
/* Returns the second of two tests sharing a full name, or NULL. */
const perf__registry_test *perf__registry_duplicate(const perf__registry_test **first);

#endif
