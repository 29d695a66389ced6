/* hostshare.c — the host's CPUs shared out among the perfgate runs on it. */
/* How many CPUs this process may use (affinity, cpu.max), the perfgate runs
 * on the host (a lock directory), and one run's share of threads. */
#define _GNU_SOURCE
#include "host/hostshare.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/cpumask.h"
#include "host/hostload.h"

/* See hostshare.h. */
int perf__hostshare_cpus(void)
{
  int n = perf__cpumask_count();
  double quota = perf__hostload_quota();
  if (quota > 0 && quota < n) n = (int)quota;
  return n > 1 ? n : 1;
}

/* See hostshare.h. */
int perf__hostshare_share(int cpus, int k)
{
  int per = cpus / (k > 1 ? k : 1);
  if (per >= 2) per--; /* the runner's CPU */
  return per > 1 ? per : 1;
}

/* See hostshare.h. */
const char *perf__hostshare_dir(char *buf, size_t len)
{
  const char *env = getenv("PERF_LOCK_DIR");
  struct stat st;
  if (env && *env) {
    snprintf(buf, len, "%s", env);
    size_t n = strlen(buf);
    while (n > 1 && buf[n - 1] == '/') buf[--n] = '\0'; /* so that lstat sees a link */
  } else
    snprintf(buf, len, "%s/perfgate-%ld",
             !stat("/dev/shm", &st) && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp",
             (long)getuid());
  return buf;
}

/* Checks the lock directory: a directory (not a link to one), owned by
 * this user unless PERF_LOCK_DIR names it. Returns 0, or -1 with the
 * reason in err. */
static int checked_dir(const char *dir, char *err, size_t len)
{
  struct stat st;
  if (lstat(dir, &st))
    return snprintf(err, len, "cannot look at %s: %s", dir, strerror(errno)), -1;
  if (S_ISLNK(st.st_mode))
    return snprintf(err, len, "%s is a symbolic link (refused: name the directory itself)",
                    dir), -1;
  if (!S_ISDIR(st.st_mode)) return snprintf(err, len, "%s is not a directory", dir), -1;
  const char *named = getenv("PERF_LOCK_DIR");
  if (!(named && *named) && st.st_uid != getuid())
    return snprintf(err, len, "%s belongs to another user", dir), -1;
  return 0;
}

/* Makes the lock directory when missing, then checks it (checked_dir). */
static int usable_dir(const char *dir, char *err, size_t len)
{
  if (mkdir(dir, 0700) && errno != EEXIST)
    return snprintf(err, len, "cannot make %s: %s", dir, strerror(errno)), -1;
  return checked_dir(dir, err, len);
}

/* This process's CPUs as a list "0-3,8". Never fails (truncates). */
static void cpu_list(char *buf, size_t len)
{
  cpu_set_t set;
  size_t used = 0;
  buf[0] = '\0';
  if (perf__cpumask_get(&set)) return;
  for (int c = 0; c < CPU_SETSIZE && used < len; c++) {
    if (!CPU_ISSET(c, &set)) continue;
    int e = c;
    while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set)) e++;
    int n = e > c ? snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", c, e)
                  : snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
    used += n > 0 ? (size_t)n : 0;
    c = e;
  }
}

/* This process's namespace of a kind ("pid:[4026531836]" for "pid"), so
 * that runs in containers sharing a lock directory tell their pids and
 * cgroups apart; "" unknown. */
static void name_space(const char *kind, char *buf, size_t len)
{
  char link[64];
  snprintf(link, sizeof link, "/proc/self/ns/%s", kind);
  ssize_t n = readlink(link, buf, len - 1);
  buf[n > 0 ? n : 0] = '\0';
}

/* This process's cgroup as "NAMESPACE PATH"; "" when it has none to read. */
static void cgroup_key(char *buf, size_t len)
{
  char ns[128], dir[4096];
  name_space("cgroup", ns, sizeof ns);
  if (perf__hostload_cgroup_dir(dir, sizeof dir)) buf[0] = '\0';
  else snprintf(buf, len, "%s %s", ns, dir);
}

/* See hostshare.h. The file is written under a dot name and renamed once
 * locked, so that no reader ever sees an unlocked live file. */
int perf__hostshare_register(char *err, size_t len)
{
  char dir[4096], tmp[4200], path[4200], text[8900], cpus[4096], cg[4300], ns[128];
  struct timespec now;
  perf__hostshare_dir(dir, sizeof dir);
  if (usable_dir(dir, err, len)) return -1;
  clock_gettime(CLOCK_REALTIME, &now);
  snprintf(tmp, sizeof tmp, "%s/.new-%ld-%ld", dir, (long)getpid(), (long)now.tv_nsec);
  snprintf(path, sizeof path, "%s/run-%ld-%ld", dir, (long)getpid(), (long)now.tv_nsec);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return snprintf(err, len, "cannot write in %s: %s", dir, strerror(errno)), -1;
  cpu_list(cpus, sizeof cpus);
  cgroup_key(cg, sizeof cg);
  name_space("pid", ns, sizeof ns);
  int n = snprintf(text, sizeof text, "pid %ld\ncpus %s\ncgroup %s\npidns %s\n", (long)getpid(),
                   cpus, cg, ns);
  if (flock(fd, LOCK_EX | LOCK_NB) || write(fd, text, (size_t)n) != n || rename(tmp, path)) {
    snprintf(err, len, "cannot register in %s: %s", dir, strerror(errno));
    unlink(tmp);
    close(fd);
    return -1;
  }
  return fd;
}

/* See hostshare.h. */
void perf__hostshare_unregister(int fd)
{
  char link[64], path[4200];
  if (fd < 0) return;
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n > 0) {
    path[n] = '\0';
    unlink(path);
  }
  close(fd);
}

/* Whether the CPU list text ("0-3,8") names a CPU of set. */
static int overlaps(const char *text, const cpu_set_t *set)
{
  while (*text >= '0' && *text <= '9') {
    char *end;
    long a = strtol(text, &end, 10), b = a;
    if (*end == '-') b = strtol(end + 1, &end, 10);
    for (long c = a; c <= b && c < CPU_SETSIZE; c++)
      if (CPU_ISSET((int)c, set)) return 1;
    text = *end == ',' ? end + 1 : end;
  }
  return 0;
}

/* Whether text's line starting with key (e.g. "\ncgroup ") holds exactly
 * value; a missing line counts as value "". */
static int same_line(const char *text, const char *key, const char *value)
{
  const char *at = strstr(text, key);
  size_t n = strlen(value);
  if (!at) return !n;
  at += strlen(key);
  return !strncmp(at, value, n) && (at[n] == '\n' || at[n] == '\0');
}

/* One entry of the lock directory, another live run: *cpus when its CPUs
 * overlap set, *cgroup when it runs in the cgroup cg (and so under its
 * quota). This process's own run (that of the supervisor of a worker) is
 * not another; a stale file (no process holds its lock) is removed. */
static void other_run(const char *path, const cpu_set_t *set, const char *cg, int *cpus,
                      int *cgroup)
{
  char text[9000];
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  *cpus = *cgroup = 0;
  if (fd < 0) return;
  if (!flock(fd, LOCK_SH | LOCK_NB)) { /* nobody holds it: its run is gone */
    unlink(path);
    close(fd);
    return;
  }
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  text[n > 0 ? n : 0] = '\0';
  long pid = 0;
  char *list = strstr(text, "\ncpus "), *group = strstr(text, "\ncgroup "), ns[128];
  if (sscanf(text, "pid %ld", &pid) != 1 || !list) return;
  name_space("pid", ns, sizeof ns);
  if ((pid == (long)getpid() || pid == (long)getppid()) && same_line(text, "\npidns ", ns)) return;
  *cpus = overlaps(list + 6, set);
  *cgroup = *cg && group && same_line(text, "\ncgroup ", cg);
}

/* A ".new-" file of a run that died while registering (unlocked, a minute
 * old: a live one is locked microseconds after it is made) is removed. */
static void sweep_unfinished(const char *path)
{
  struct stat st;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return;
  if (!fstat(fd, &st) && st.st_mtime < time(NULL) - 60 && !flock(fd, LOCK_SH | LOCK_NB))
    unlink(path);
  close(fd);
}

/* See hostshare.h. */
int perf__hostshare_runs(int *same_cgroup)
{
  char dir[4096], path[4400], cg[4300];
  cpu_set_t set;
  int k = 1, kc = 1; /* this run, registered or not */
  *same_cgroup = 1;
  char why[300];
  if (perf__cpumask_get(&set)) return 1;
  /* a directory registration would refuse is not read either */
  if (checked_dir(perf__hostshare_dir(dir, sizeof dir), why, sizeof why)) return 1;
  DIR *d = opendir(dir);
  if (!d) return 1;
  cgroup_key(cg, sizeof cg);
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    int cpus, cgroup;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (!strncmp(e->d_name, ".new-", 5)) sweep_unfinished(path);
    if (strncmp(e->d_name, "run-", 4)) continue;
    other_run(path, &set, cg, &cpus, &cgroup);
    k += cpus, kc += cgroup;
  }
  closedir(d);
  *same_cgroup = kc;
  return k;
}

/* See hostshare.h. */
int perf__hostshare_threads(void)
{
  int kc, k = perf__hostshare_runs(&kc), per = perf__cpumask_count() / k;
  double quota = perf__hostload_quota();
  if (quota > 0 && (int)(quota / kc) < per) per = (int)(quota / kc);
  int n = perf__hostshare_share(per, 1);
  const char *omp = getenv("OMP_NUM_THREADS");
  long cap = omp ? strtol(omp, NULL, 10) : 0;
  return cap > 0 && cap < n ? (int)cap : n;
}

/* See hostshare.h. */
void perf__hostshare_describe(char *buf, size_t len)
{
  char dir[4096];
  int kc, k = perf__hostshare_runs(&kc);
  double quota = perf__hostload_quota();
  char q[64] = "no cpu.max quota";
  if (quota > 0) snprintf(q, sizeof q, "cpu.max %.2f CPUs", quota);
  snprintf(buf, len, "CPUs: %d (affinity %d, %s); perfgate runs sharing them: %d (%d in this "
           "cgroup; lock directory %s); perf_host_threads(): %d",
           perf__hostshare_cpus(), perf__cpumask_count(), q, k, kc,
           perf__hostshare_dir(dir, sizeof dir), perf__hostshare_threads());
}
