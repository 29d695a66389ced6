/* traceexport.c — --trace-dir: a workload's trace as Chrome JSON (Perfetto, chrome://tracing). */
#define _GNU_SOURCE
#include "worker/streams/traceexport.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/file.h"
#include "util/status.h"

/* name with the characters a file name should not have made '_', into
 * buf[len]. Never fails (truncates). */
static void safe(char *buf, size_t len, const char *name)
{
  size_t n = 0;
  for (; *name && n + 1 < len; name++) {
    char c = *name;
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             strchr("-_.[]=", c);
    buf[n++] = ok ? c : '_';
  }
  buf[n] = '\0';
}

/* See traceexport.h. */
int perf__traceexport_write(const perf__traceexport_file *to, const perf__trace *t, char *path,
                            size_t plen, char *err, size_t len)
{
  const char *dir = to->dir, *test = to->test, *workload = to->workload;
  char a[200], b[120], title[400], *text = NULL;
  size_t size = 0;
  path[0] = err[0] = '\0';
  if (!t->nevents) return 0;
  if (mkdir(dir, 0777) && errno != EEXIST)
    return snprintf(err, len, "--trace-dir=%s: cannot make it: %s", dir, strerror(errno)), PERF__EIO;
  safe(a, sizeof a, test);
  safe(b, sizeof b, workload);
  snprintf(path, plen, "%s/%s.%s.json", dir, a, b);
  snprintf(title, sizeof title, "%s / %s: %d calls of the workload (perfgate's untimed routing pass)",
           test, workload, t->calls);
  FILE *m = open_memstream(&text, &size);
  int rc = !m || perf__trace_export(t, title, m) ? PERF__EIO : 0;
  if (m) fclose(m);
  perf__file w;
  perf__file_why why = {NULL, err, len};
  if (!rc) rc = perf__file_open(&w, path, 0, &why);
  if (!rc) rc = perf__file_commit(&w, text, size, &why);
  if (rc && !err[0]) snprintf(err, len, "%s: cannot be written", path);
  free(text);
  return rc ? PERF__EIO : 0;
}
