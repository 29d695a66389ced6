/* registry.c — the registered tests in registration order, as CUDA-free entries. */
/* Both processes read them. */
#include "util/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfgate.h"

static perf__registry_test *head, **tail = &head;

/* Public (called by PERF_TEST constructors, before main). Out of memory it
 * says so and exits 2: nothing can run. */
void perf__register(perf__test *t)
{
  perf__registry_test *e = malloc(sizeof *e);
  if (!e) {
    fprintf(stderr, "perfgate: out of memory registering %s.%s\n", t->suite, t->name);
    exit(2);
  }
  *e = (perf__registry_test){t->suite, t->name, t->file, t->line, t->opt_in, t->body, NULL};
  *tail = e;
  tail = &e->next;
}

/* Never fails. */
const perf__registry_test *perf__registry_all(void) { return head; }

/* Never fails; truncates. */
char *perf__registry_fullname(const perf__registry_test *t, char *buf, size_t len)
{
  snprintf(buf, len, "%s.%s", t->suite, t->name);
  return buf;
}

static int same(const perf__registry_test *a, const perf__registry_test *b)
{
  return strcmp(a->suite, b->suite) == 0 && strcmp(a->name, b->name) == 0;
}

/* NULL when no test has that name. */
const perf__registry_test *perf__registry_find(const char *full)
{
  char buf[512];
  for (const perf__registry_test *t = head; t; t = t->next)
    if (strcmp(perf__registry_fullname(t, buf, sizeof buf), full) == 0) return t;
  return NULL;
}

/* Quadratic, run once at start-up; NULL when names are unique. */
const perf__registry_test *perf__registry_duplicate(const perf__registry_test **first)
{
  for (const perf__registry_test *a = head; a; a = a->next)
    for (const perf__registry_test *b = a->next; b; b = b->next)
      if (same(a, b)) {
        *first = a;
        return b;
      }
  return NULL;
}
