/* baselinedir.c — the baseline directory: reading, validating and updating it. */
/* Whether a command can read it; --check-baselines validates every file
 * without running a test; the updater creates, probes and locks it, and
 * clears what a dead updater left. */
#define _GNU_SOURCE
#include "supervisor/baselinedir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baseline/baseline.h"
#include "baseline/blyaml.h"
#include "io/file.h"
#include "baseline/machine.h"
#include "util/status.h"
#include "util/units.h"
#include "util/progname.h"

/* 1 for a baseline file's name (perf__baseline_is_file_name). */
static int is_baseline(const struct dirent *e) { return perf__baseline_is_file_name(e->d_name); }

/* The length of e's name without a YAML suffix that no run reads
 * (".yml", ".YAML", ".Yml", ...: any case of ".yaml" or ".yml" but
 * ".yaml" itself), or 0 for another name. */
static size_t misnamed_stem(const char *name)
{
  size_t n = strlen(name);
  if (n > 4 && !strcasecmp(name + n - 4, ".yml")) return n - 4;
  if (n > 5 && !strcasecmp(name + n - 5, ".yaml") && strcmp(name + n - 5, ".yaml")) return n - 5;
  return 0;
}

static int is_misnamed(const struct dirent *e) { return misnamed_stem(e->d_name) > 0; }

/* Names each file of dir that looks like a baseline file but is not read
 * by a run (misnamed_stem), after "who: ", on err. Returns 2 when there is
 * one, 0 when there is none or dir cannot be listed (the caller's scan
 * says why). */
static int misnamed(const char *dir, const char *who, FILE *err)
{
  struct dirent **names;
  int n = scandir(dir, &names, is_misnamed, alphasort);
  for (int i = 0; i < n; i++) {
    const char *name = names[i]->d_name;
    fprintf(err, "%s: %s: %s/%s: not read by a run, which reads only files named '.yaml': rename "
            "it to %.*s.yaml, or remove it\n", perf__progname(), who, dir, name,
            (int)misnamed_stem(name), name);
    free(names[i]);
  }
  if (n > 0) free(names);
  return n > 0 ? 2 : 0;
}

/* What a valid file at path (its model b) is to this host (now, its
 * fingerprint: perf__machine_host): a note line to out when it has this
 * host's name (baseline/machine.h) and is another machine's, or is this
 * host's under the name host files had before. Never fails. */
static void host_note(const char *dir, const char *path, const perf__baseline *b,
                      const perf__baseline *now, FILE *out)
{
  char mine[4200], before[4200], was[400], is[400];
  perf__baseline_path(dir, now, mine, sizeof mine);
  int old = perf__baseline_path_before(dir, now, before, sizeof before) && !strcmp(path, before);
  if (!perf__machine_is_host(b) || (strcmp(path, mine) && !old)) return;
  if (old && perf__machine_other(b, now))
    fprintf(out, "      note: another machine's file under the name this machine's had before "
            "host files were named by their CPU count too (recorded on %s; this machine is %s): "
            "a run here does not read it (this machine's file is %s)\n",
            perf__machine_describe(b, was, sizeof was), perf__machine_describe(now, is, sizeof is),
            mine);
  else if (perf__machine_other(b, now))
    fprintf(out, "      note: another machine's file under this machine's name (recorded on %s; "
            "this machine is %s): a run here skips its baseline checks, never deciding them on "
            "its numbers; to record this machine's, move it away, then --update-baselines\n",
            perf__machine_describe(b, was, sizeof was), perf__machine_describe(now, is, sizeof is));
  else if (old)
    fprintf(out, "      note: this machine's file under the name host files had before they "
            "were named by their CPU count too: a run here reads it while %s is not this "
            "machine's\n", mine);
}

/* Validates one file, printing its line to out (unless NULL; with what it
 * is to this host, now) or its problem to err, after "who: ". Returns 0
 * or 2. */
static int check_file(const char *dir, const char *name, const perf__baseline *now,
                      const char *who, FILE *out, FILE *err)
{
  char path[4200], why[600], what[600];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  perf__baseline b;
  perf__baseline_init(&b);
  int e = perf__blyaml_load(path, &b, why, sizeof why);
  if (e) {
    if (e == PERF__EBADFILE)
      fprintf(err, "%s: %s: %s\n", perf__progname(), who, why);
    else
      fprintf(err, "%s: %s: %s: %s\n", perf__progname(), who, path,
              e == PERF__EIO ? strerror(errno) : perf__status_strerror(e));
    perf__baseline_free(&b);
    return 2;
  }
  if (perf__machine_is_host(&b)) perf__machine_describe(&b, what, sizeof what);
  else snprintf(what, sizeof what, "%s", perf__baseline_model(&b));
  if (out) {
    char works[64] = ""; /* named only where the file has some */
    if (b.nworks)
      snprintf(works, sizeof works, ", %zu %s", b.nworks,
               perf__units_noun((long long)b.nworks, "work count", "work counts"));
    fprintf(out, "ok    %s: %zu %s, %zu %s%s (%s)\n", path, b.nentries,
          perf__units_noun((long long)b.nentries, "entry", "entries"), b.nratios,
          perf__units_noun((long long)b.nratios, "ratio", "ratios"), works, what);
    host_note(dir, path, &b, now, out);
  }
  perf__baseline_free(&b);
  return 0;
}

/* See baselinedir.h. */
int perf__baselinedir_host_file(const char *dir, const char *who, FILE *err)
{
  perf__baseline now, file;
  char path[4200], note[1200];
  perf__baseline_init(&now);
  perf__machine_host(&now);
  perf__machine_fit fit = perf__machine_load(dir, &now, &file, path, sizeof path, note, sizeof note);
  perf__baseline_free(&file);
  if (fit != PERF__MACHINE_OTHER) return 0;
  fprintf(err, "%s: %s: %s: this machine's host-only entries would be written beside its own; "
          "move it away (or give another --baseline-dir) and run again\n", perf__progname(), who,
          note);
  return 2;
}

/* 1 when dir is a symbolic link to nothing, with "the baseline directory
 * 'DIR' is a symbolic link to 'TARGET', which does not exist ..." in
 * err[len]; 0 otherwise. Never fails. */
static int dangling(const char *dir, char *err, size_t len)
{
  char target[4096];
  if (!perf__file_dangling(dir, target, sizeof target)) return 0;
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
  if (misnamed(dir, who, err)) return 2;
  struct dirent **names;
  int n = scandir(dir, &names, is_baseline, alphasort);
  if (n < 0) {
    fprintf(err, "%s: %s: cannot read the directory '%s': %s\n", perf__progname(), who, dir,
            strerror(errno));
    return 2;
  }
  int code = 0, valid = 0;
  perf__baseline now;
  perf__baseline_init(&now);
  perf__machine_host(&now);
  for (int i = 0; i < n; i++) {
    if (!code && !(code = check_file(dir, names[i]->d_name, &now, who, out, err))) valid++;
    free(names[i]);
  }
  free(names);
  if (!code && out)
    fprintf(out, "%d baseline %s in %s, all valid%s\n", valid,
            perf__units_noun(valid, "file", "files"), dir, valid ? "" : " (none to check)");
  return code;
}

/* ---- the updater's side ------------------------------------------------ */

/* 1 when s is one or more digits and nothing else. */
static int all_digits(const char *s)
{
  if (!*s) return 0;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return 0;
  return 1;
}

/* Removes "path.tmp.PID" files: under the lock, any such file was left by
 * an updater that died (kill -9, power loss) before its rename. Returns how
 * many were removed; never fails (what cannot go stays). */
static int remove_stale(const char *path)
{
  char dir[4096], prefix[4200];
  perf__file_dir_of(path, dir, sizeof dir);
  const char *base = strrchr(path, '/');
  snprintf(prefix, sizeof prefix, "%s.tmp.", base ? base + 1 : path);
  DIR *d = opendir(dir);
  if (!d) return 0;
  int removed = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (!strncmp(e->d_name, prefix, strlen(prefix)) && all_digits(e->d_name + strlen(prefix)) &&
        unlinkat(dirfd(d), e->d_name, 0) == 0)
      removed++;
  closedir(d);
  return removed;
}


/* Removes what a dead updater left beside path, saying so; returns fd.
 * Never fails. */
static int cleared(const char *path, int fd)
{
  int stale = remove_stale(path);
  if (stale)
    printf("baselines: removed %d temporary file%s left by an interrupted update of %s\n",
           stale, stale == 1 ? "" : "s", path);
  return fd;
}

/* See baselinedir.h. */
int perf__baselinedir_lock(const char *path, char *err, size_t errlen)
{
  char dir[4096], lock[4200];
  perf__file_dir_of(path, dir, sizeof dir);
  snprintf(lock, sizeof lock, "%s/%s", dir, PERF__BASELINEDIR_LOCK_FILE);
  int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    snprintf(err, errlen, "%s: cannot open the lock file: %s", lock, strerror(errno));
    return -1;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) return cleared(path, fd);
  if (errno == EWOULDBLOCK) {
    fprintf(stderr, "%s: baselines: another update holds %s; waiting for it\n", perf__progname(),
            lock);
    int r;
    while ((r = flock(fd, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (r == 0) return cleared(path, fd);
  }
  snprintf(err, errlen, "%s: cannot lock: %s", lock, strerror(errno));
  close(fd);
  return -1;
}

/* Creates dir and any parent it lacks (mode 0777 less the umask), as
 * mkdir -p. Returns 0 or -1 with errno set. */
static int make_dirs(const char *dir)
{
  char p[4096];
  struct stat st;
  if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) return errno = ENAMETOOLONG, -1;
  for (char *c = p + 1; *c; c++) {
    if (*c != '/') continue;
    *c = '\0';
    int bad = mkdir(p, 0777) && errno != EEXIST;
    *c = '/';
    if (bad) return -1;
  }
  if (mkdir(p, 0777) && errno != EEXIST) return -1;
  if (stat(p, &st)) return -1;
  return S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
}

/* See baselinedir.h. */
int perf__baselinedir_probe(const char *dir, char *err, size_t errlen)
{
  char probe[4200];
  if (make_dirs(dir)) {
    snprintf(err, errlen, "cannot create the baseline directory %s: %s", dir, strerror(errno));
    return PERF__EIO;
  }
  snprintf(probe, sizeof probe, "%s/.perfgate-probe.%ld", dir, (long)getpid());
  int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    snprintf(err, errlen, "cannot write in %s: %s", dir, strerror(errno));
    return PERF__EIO;
  }
  close(fd);
  if (unlink(probe)) {
    snprintf(err, errlen, "cannot remove %s again: %s", probe, strerror(errno));
    return PERF__EIO;
  }
  return 0;
}

/* See baselinedir.h. */
void perf__baselinedir_unlock(int fd)
{
  if (fd >= 0) close(fd); /* closing the only descriptor releases the flock */
}
