/* baselinedir.c — --check-baselines: every baseline file in the directory read and validated, without running a test. */
#define _GNU_SOURCE
#include "supervisor/baselinedir.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/baseline.h"
#include "base/status.h"

/* 1 for a name that ends in ".yaml" and is more than that (the loader's
 * files; temporaries "x.yaml.tmp.PID", README.md and the lock pass). */
static int is_baseline(const struct dirent *e)
{
  size_t n = strlen(e->d_name);
  return n > 5 && !strcmp(e->d_name + n - 5, ".yaml");
}

/* Validates one file, printing its line to out or its problem to err.
 * Returns 0 or 2. */
static int check_file(const char *dir, const char *name, FILE *out, FILE *err)
{
  char path[4200], why[600];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  perf__baseline b;
  perf__baseline_init(&b);
  int e = perf__baseline_load(path, &b, why, sizeof why);
  if (e) {
    if (e == PERF__EBADFILE)
      fprintf(err, "perftest: --check-baselines: %s\n", why);
    else
      fprintf(err, "perftest: --check-baselines: %s: %s\n", path,
              e == PERF__EIO ? strerror(errno) : perf__status_strerror(e));
    perf__baseline_free(&b);
    return 2;
  }
  fprintf(out, "ok    %s: %zu entries, %zu ratios (%s)\n", path, b.nentries, b.nratios,
          perf__baseline_model(&b));
  perf__baseline_free(&b);
  return 0;
}

/* See baselinedir.h. */
int perf__baselinedir_check(const char *dir, FILE *out, FILE *err)
{
  struct dirent **names;
  int n = scandir(dir, &names, is_baseline, alphasort);
  if (n < 0) {
    fprintf(err, "perftest: --check-baselines: cannot read the directory '%s': %s\n", dir,
            strerror(errno));
    return 2;
  }
  int code = 0, valid = 0;
  for (int i = 0; i < n; i++) {
    if (!code && !(code = check_file(dir, names[i]->d_name, out, err))) valid++;
    free(names[i]);
  }
  free(names);
  if (!code)
    fprintf(out, "%d baseline file%s in %s, all valid%s\n", valid, valid == 1 ? "" : "s", dir,
            valid ? "" : " (none to check)");
  return code;
}
