/* baselinedir.c — the baseline directory before anything runs: whether a command can read it, and --check-baselines, every baseline file in it validated without running a test. */
#define _GNU_SOURCE
#include "supervisor/baselinedir.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/baseline.h"
#include "base/status.h"
#include "base/units.h"
#include "base/progname.h"

/* 1 for a name that ends in ".yaml" and is more than that (the loader's
 * files; temporaries "x.yaml.tmp.PID", README.md and the lock pass). */
static int is_baseline(const struct dirent *e)
{
  size_t n = strlen(e->d_name);
  return n > 5 && !strcmp(e->d_name + n - 5, ".yaml");
}

/* Validates one file, printing its line to out (unless NULL) or its
 * problem to err, after "who: ". Returns 0 or 2. */
static int check_file(const char *dir, const char *name, const char *who, FILE *out, FILE *err)
{
  char path[4200], why[600];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  perf__baseline b;
  perf__baseline_init(&b);
  int e = perf__baseline_load(path, &b, why, sizeof why);
  if (e) {
    if (e == PERF__EBADFILE)
      fprintf(err, "%s: %s: %s\n", perf__progname(), who, why);
    else
      fprintf(err, "%s: %s: %s: %s\n", perf__progname(), who, path,
              e == PERF__EIO ? strerror(errno) : perf__status_strerror(e));
    perf__baseline_free(&b);
    return 2;
  }
  if (out)
    fprintf(out, "ok    %s: %zu %s, %zu %s (%s)\n", path, b.nentries,
          perf__units_noun((long long)b.nentries, "entry", "entries"), b.nratios,
          perf__units_noun((long long)b.nratios, "ratio", "ratios"), perf__baseline_model(&b));
  perf__baseline_free(&b);
  return 0;
}

/* 1 when dir is a symbolic link to nothing, with "the baseline directory
 * 'DIR' is a symbolic link to 'TARGET', which does not exist ..." in
 * err[len]; 0 otherwise. Never fails. */
static int dangling(const char *dir, char *err, size_t len)
{
  struct stat st;
  char target[4096];
  if (lstat(dir, &st) || !S_ISLNK(st.st_mode)) return 0;
  ssize_t n = readlink(dir, target, sizeof target - 1);
  target[n > 0 ? n : 0] = '\0';
  snprintf(err, len, "the baseline directory '%s' is a symbolic link to '%s', which does not "
           "exist: create the directory it names, or remove the link (--baseline-dir=DIR names "
           "another)", dir, target);
  return 1;
}

/* See baselinedir.h. */
int perf__baselinedir_usable(const char *dir, int must_exist, int *missing, char *err,
                             size_t len)
{
  struct stat st;
  int bad = stat(dir, &st) ? errno : 0;
  *missing = bad == ENOENT;
  if (*missing && dangling(dir, err, len)) return *missing = 0, PERF__EUSAGE;
  if (*missing && !must_exist) return 0;
  if (!bad && !S_ISDIR(st.st_mode)) bad = ENOTDIR;
  if (!bad && access(dir, R_OK | X_OK)) bad = errno;
  if (!bad) return 0;
  snprintf(err, len, "cannot read the directory '%s': %s (%s)", dir, strerror(bad),
           *missing ? "named by --baseline-dir: check the name; --update-baselines creates it"
                    : "the baseline directory; --baseline-dir=DIR names another");
  return PERF__EUSAGE;
}

/* See baselinedir.h. */
int perf__baselinedir_check(const char *dir, int given, const char *who, FILE *out, FILE *err)
{
  char why[4400];
  int missing;
  if (perf__baselinedir_usable(dir, given, &missing, why, sizeof why)) {
    fprintf(err, "%s: %s: %s\n", perf__progname(), who, why);
    return 2;
  }
  if (missing) {
    if (out)
      fprintf(out, "no baseline directory '%s' yet: no baseline file to check "
                   "(--update-baselines creates it)\n", dir);
    return 0;
  }
  struct dirent **names;
  int n = scandir(dir, &names, is_baseline, alphasort);
  if (n < 0) {
    fprintf(err, "%s: %s: cannot read the directory '%s': %s\n", perf__progname(), who, dir,
            strerror(errno));
    return 2;
  }
  int code = 0, valid = 0;
  for (int i = 0; i < n; i++) {
    if (!code && !(code = check_file(dir, names[i]->d_name, who, out, err))) valid++;
    free(names[i]);
  }
  free(names);
  if (!code && out)
    fprintf(out, "%d baseline %s in %s, all valid%s\n", valid,
            perf__units_noun(valid, "file", "files"), dir, valid ? "" : " (none to check)");
  return code;
}
