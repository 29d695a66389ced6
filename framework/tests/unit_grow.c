/* unit_grow.c — growth by doubling: the capacity rule and the array it grows. */
#include <stdint.h>
#include <stdlib.h>

#include "selftest.h"
#include "util/grow.h"

/* The next capacity: kept when it holds need, else doubled from cap (first
 * when empty) until it does; 0 when it would overflow. */
ST_TEST(grow_capacity_doubles_until_it_holds)
{
  ST_EQ(perf__grow_cap(0, 1, 16), 16);
  ST_EQ(perf__grow_cap(0, 17, 16), 32);
  ST_EQ(perf__grow_cap(16, 16, 8), 16);
  ST_EQ(perf__grow_cap(16, 17, 8), 32);
  ST_EQ(perf__grow_cap(3, 100, 8), 192);
  ST_EQ(perf__grow_cap(0, 5, 0), 8); /* no first: from 1 */
  ST_EQ(perf__grow_cap(SIZE_MAX / 2 + 1, SIZE_MAX, 8), 0);
}

/* An array grown one item at a time keeps its items, and a size that
 * would overflow is refused with the array intact. */
ST_TEST(grow_array_keeps_items_and_refuses_overflow)
{
  int *a = NULL;
  size_t cap = 0;
  for (int i = 0; i < 1000; i++) {
    int *g = perf__grow(a, &cap, (size_t)i + 1, sizeof *g, 4);
    ST_CHECK(g != NULL);
    if (!g) break;
    a = g;
    a[i] = i;
  }
  ST_EQ(cap, 1024);
  long sum = 0;
  for (int i = 0; i < 1000; i++) sum += a[i];
  ST_EQ(sum, 499500);
  ST_CHECK(perf__grow(a, &cap, 1000, sizeof *a, 4) == a); /* room: the same array */
  ST_CHECK(perf__grow(a, &cap, SIZE_MAX / 2, sizeof *a, 4) == NULL);
  ST_EQ(cap, 1024);
  free(a);
}
