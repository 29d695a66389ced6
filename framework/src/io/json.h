/* json.h — a JSON text builder: escaped strings, numbers (non-finite as null), raw pieces. */
#ifndef PERF_JSON_H
#define PERF_JSON_H

#include <stddef.h>

typedef struct perf__json {
  char *s;
  size_t len, cap;
  int oom; /* set once an append failed: the text is incomplete */
} perf__json;

/* Appends printf-style text as is. Never fails: on out of memory it sets
 * oom and drops the rest. */
void perf__json_raw(perf__json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s as a JSON string (quoted, escaped; invalid UTF-8 as U+FFFD). */
void perf__json_str(perf__json *j, const char *s);
/* The same for n bytes that may hold NULs. */
void perf__json_strn(perf__json *j, const char *s, size_t n);
/* Appends a number with 17 significant digits, or null when not finite. */
void perf__json_num(perf__json *j, double v);
void perf__json_free(perf__json *j);
/* Length of the valid UTF-8 sequence at p (n bytes left), 0 if invalid:
 * truncated, overlong, a surrogate, beyond U+10FFFF, or U+FFFE/U+FFFF. */
size_t perf__json_utf8_len(const unsigned char *p, size_t n);

#endif
