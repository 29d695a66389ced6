/* json.c — a JSON text builder: escaped strings, numbers (non-finite as null), raw pieces. */
#define _GNU_SOURCE
#include "io/json.h"
#include "util/grow.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Makes room for n more bytes plus a NUL; 0, or -1 with oom set. */
static int reserve(perf__json *j, size_t n)
{
  if (j->oom) return -1;
  char *s = perf__grow(j->s, &j->cap, j->len + n + 1, 1, 256);
  if (!s) {
    j->oom = 1;
    return -1;
  }
  j->s = s;
  return 0;
}

/* See json.h. */
void perf__json_raw(perf__json *j, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || reserve(j, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(j->s + j->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  j->len += (size_t)n;
}

/* See json.h. */
size_t perf__json_utf8_len(const unsigned char *p, size_t n)
{
  static const unsigned least[] = {0, 0, 0x80, 0x800, 0x10000}; /* shortest form */
  size_t len = p[0] < 0x80 ? 1 : (p[0] >> 5) == 6 ? 2 : (p[0] >> 4) == 14 ? 3
             : (p[0] >> 3) == 30 ? 4 : 0;
  if (!len || len > n) return 0;
  if (len == 1) return 1;
  unsigned cp = p[0] & (0x7f >> len);
  for (size_t k = 1; k < len; k++) {
    if ((p[k] & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (p[k] & 0x3f);
  }
  if (cp < least[len] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return 0;
  if (cp == 0xfffe || cp == 0xffff) return 0; /* noncharacters JSON readers refuse */
  return len;
}

/* See json.h. */
void perf__json_strn(perf__json *j, const char *s, size_t n)
{
  const unsigned char *p = (const unsigned char *)s;
  perf__json_raw(j, "\"");
  for (size_t i = 0; i < n;) {
    size_t len = perf__json_utf8_len(p + i, n - i);
    unsigned c = p[i];
    if (!len) perf__json_raw(j, "\\ufffd"), len = 1;
    else if (c == '"' || c == '\\') perf__json_raw(j, "\\%c", c);
    else if (c == '\n') perf__json_raw(j, "\\n");
    else if (c == '\t') perf__json_raw(j, "\\t");
    else if (c < 0x20 || c == 0x7f) perf__json_raw(j, "\\u%04x", c);
    else if (c == 0xc2 && p[i + 1] < 0xa0) /* C1 controls: escaped, as YAML wants */
      perf__json_raw(j, "\\u%04x", (unsigned)p[i + 1]);
    else perf__json_raw(j, "%.*s", (int)len, (const char *)p + i);
    i += len;
  }
  perf__json_raw(j, "\"");
}

/* See json.h. */
void perf__json_str(perf__json *j, const char *s) { perf__json_strn(j, s, strlen(s)); }

/* See json.h. */
void perf__json_num(perf__json *j, double v)
{
  if (isfinite(v)) perf__json_raw(j, "%.17g", v);
  else perf__json_raw(j, "null");
}

/* Never fails. */
void perf__json_free(perf__json *j)
{
  free(j->s);
  *j = (perf__json){0};
}
