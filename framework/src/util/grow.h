/* grow.h — growth by doubling for the framework's arrays: the next capacity, and the realloc. */
#ifndef PERF_GROW_H
#define PERF_GROW_H

#include <stddef.h>

/* The capacity an array of capacity cap takes to hold need items: cap when
 * it does, else cap (first when cap is 0) doubled until it does. Returns 0
 * when that would not fit in a size_t. Never fails otherwise. */
size_t perf__grow_cap(size_t cap, size_t need, size_t first);

/* Makes room for need items of size bytes in the array p of capacity *cap:
 * p itself when it has it, else p realloc'd to perf__grow_cap(*cap, need,
 * first) items, *cap updated. Returns NULL without memory (or when the size
 * would overflow), p still valid and *cap unchanged. need must be >= 1. */
void *perf__grow(void *p, size_t *cap, size_t need, size_t size, size_t first);

#endif
