/* endframe.c — the END frame: a finished test's tally, sent by the worker as named fields. */
#include "record/endframe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"

/* See endframe.h. */
size_t perf__endframe_format(const perf__endframe *e, char *buf, size_t len)
{
  int n = snprintf(buf, len,
#define PERF__X(field, what) #field "=%d "
                   PERF__ENDFRAME_MAP(PERF__X)
#undef PERF__X
                   "\n%s",
#define PERF__X(field, what) e->field,
                   PERF__ENDFRAME_MAP(PERF__X)
#undef PERF__X
                   e->reason);
  if (n < 0) return 0;
  return (size_t)n < len ? (size_t)n : len - 1;
}

/* Reads "name=INT " at *p into *value, moving *p past it. Returns 0 or
 * PERF__EPROTO. */
static int field(const char **p, const char *name, int *value)
{
  size_t n = strlen(name);
  if (strncmp(*p, name, n) || (*p)[n] != '=') return PERF__EPROTO;
  char *end;
  long v = strtol(*p + n + 1, &end, 10);
  if (end == *p + n + 1 || *end != ' ' || v < -1000000 || v > 1000000) return PERF__EPROTO;
  *value = (int)v;
  *p = end + 1;
  return 0;
}

/* See endframe.h. */
int perf__endframe_parse(const char *data, perf__endframe *e)
{
  const char *p = data;
  memset(e, 0, sizeof *e);
#define PERF__X(f, what) \
  if (field(&p, #f, &e->f)) return PERF__EPROTO;
  PERF__ENDFRAME_MAP(PERF__X)
#undef PERF__X
  if (*p != '\n' || e->outcome < 0 || e->outcome >= PERF_OUTCOME_COUNT) return PERF__EPROTO;
  snprintf(e->reason, sizeof e->reason, "%s", p + 1);
  return 0;
}
