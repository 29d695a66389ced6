/* grow.c — growth by doubling for the framework's arrays: the next capacity, and the realloc. */
#include "util/grow.h"

#include <stdint.h>
#include <stdlib.h>

/* See grow.h. */
size_t perf__grow_cap(size_t cap, size_t need, size_t first)
{
  size_t c = cap ? cap : (first ? first : 1);
  while (c < need) {
    if (c > SIZE_MAX / 2) return 0;
    c *= 2;
  }
  return c;
}

/* See grow.h. */
void *perf__grow(void *p, size_t *cap, size_t need, size_t size, size_t first)
{
  if (need <= *cap && p) return p;
  size_t c = perf__grow_cap(*cap, need, first);
  if (!c || (size && c > SIZE_MAX / size)) return NULL;
  void *q = realloc(p, c * size);
  if (q) *cap = c;
  return q;
}
