/* progname.c — the name at the head of every message: argv[0]'s basename, set once by perf_main. */
#include "util/progname.h"

#include <string.h>

static const char *name = "perfgate";

/* See progname.h. */
void perf__progname_set(const char *argv0)
{
  if (!argv0 || !*argv0) return;
  const char *slash = strrchr(argv0, '/');
  name = slash && slash[1] ? slash + 1 : argv0;
}

/* See progname.h. */
const char *perf__progname(void)
{
  return name;
}
