/* registry.c — the registered tests, in registration order, and their full names. */
#include "base/registry.h"

#include <stdio.h>
#include <string.h>

static perf__test *head, **tail = &head;

/* Public (called by PERF_TEST constructors); never fails, allocates nothing. */
void perf__register(perf__test *t)
{
  t->next = NULL;
  *tail = t;
  tail = &t->next;
}

/* Never fails. */
const perf__test *perf__registry_all(void) { return head; }

/* Never fails; truncates. */
char *perf__registry_fullname(const perf__test *t, char *buf, size_t len)
{
  snprintf(buf, len, "%s.%s", t->suite, t->name);
  return buf;
}

static int same(const perf__test *a, const perf__test *b)
{
  return strcmp(a->suite, b->suite) == 0 && strcmp(a->name, b->name) == 0;
}

/* NULL when no test has that name. */
const perf__test *perf__registry_find(const char *full)
{
  char buf[512];
  for (const perf__test *t = head; t; t = t->next)
    if (strcmp(perf__registry_fullname(t, buf, sizeof buf), full) == 0) return t;
  return NULL;
}

/* Quadratic, run once at start-up; NULL when names are unique. */
const perf__test *perf__registry_duplicate(const perf__test **first)
{
  for (const perf__test *a = head; a; a = a->next)
    for (const perf__test *b = a->next; b; b = b->next)
      if (same(a, b)) {
        *first = a;
        return b;
      }
  return NULL;
}
