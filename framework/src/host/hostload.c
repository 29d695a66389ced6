/* hostload.c — a snapshot of the host's load as /proc, the cgroup and cpufreq show it. */
/* It is cheap to take, in either process. */
#define _GNU_SOURCE
#include "host/hostload.h"

#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/clock.h"
#include "host/cpumask.h"

/* The directory an environment variable names, or def. */
static const char *root(const char *var, const char *def)
{
  const char *r = getenv(var);
  return r && *r ? r : def;
}

/* See hostload.h. */
const char *perf__hostload_proc(const char *rel, char *buf, size_t len)
{
  snprintf(buf, len, "%s/%s", root("PERF_PROC_ROOT", "/proc"), rel);
  return buf;
}

/* The first len-1 bytes of a file, NUL-terminated; -1 when it cannot be
 * read or is empty. */
static int slurp(const char *path, char *buf, size_t len)
{
  FILE *f = fopen(path, "re");
  if (!f) return -1;
  size_t n = fread(buf, 1, len - 1, f);
  fclose(f);
  buf[n] = '\0';
  return n ? 0 : -1;
}

/* One "cpuN user nice system idle iowait irq softirq steal" line (after
 * "cpu") into h->cpu[N], when N is below PERF__HOSTLOAD_CPUS. */
static void one_cpu(perf__hostload *h, const char *text)
{
  unsigned long long v[8] = {0};
  int n;
  if (sscanf(text, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &n, &v[0], &v[1], &v[2], &v[3],
             &v[4], &v[5], &v[6], &v[7]) < 5 ||
      n < 0 || n >= PERF__HOSTLOAD_CPUS)
    return;
  h->cpu[n].busy = v[0] + v[1] + v[2] + v[5] + v[6];
  h->cpu[n].total = h->cpu[n].busy + v[3] + v[4] + v[7];
  if (n + 1 > h->ncpu) h->ncpu = n + 1;
}

/* /proc/stat: the "cpu" line's busy, total and steal ticks, each cpuN
 * line's, and their count. Returns 0, or -1 when unreadable. */
static int read_stat(perf__hostload *h)
{
  char path[4200], line[512];
  FILE *f = fopen(perf__hostload_proc("stat", path, sizeof path), "re");
  if (!f) return -1;
  int ok = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long long v[8] = {0};
    if (!strncmp(line, "cpu ", 4) &&
        sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
               &v[3], &v[4], &v[5], &v[6], &v[7]) >= 4) {
      /* user nice system idle iowait irq softirq steal */
      h->busy = v[0] + v[1] + v[2] + v[5] + v[6];
      h->steal = v[7];
      h->total = h->busy + v[3] + v[4] + v[7];
      ok = 1;
    } else if (!strncmp(line, "cpu", 3) && line[3] >= '0' && line[3] <= '9') {
      h->online++;
      one_cpu(h, line + 3);
    }
  }
  fclose(f);
  if (!h->online) h->online = 1;
  return ok ? 0 : -1;
}

/* /proc/loadavg: "load1 load5 load15 runnable/total lastpid". */
static int read_loadavg(perf__hostload *h)
{
  char path[4200], text[256];
  if (slurp(perf__hostload_proc("loadavg", path, sizeof path), text, sizeof text)) return -1;
  return sscanf(text, "%lf %*f %*f %d/", &h->load1, &h->runnable) == 2 ? 0 : -1;
}

/* utime + stime of one /proc stat line, in clock ticks; -1 when it does
 * not parse. */
static long long stat_ticks(const char *text)
{
  const char *p = strrchr(text, ')');
  unsigned long long ut, st;
  if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
    return -1;
  return (long long)(ut + st);
}

/* Field 39 of a stat line (the CPU it last ran on), from the text after
 * the command's parenthesis (field 3 on); -1 when the line is shorter. */
static int last_cpu(const char *after)
{
  const char *p = after;
  for (int field = 3; field < 39; field++) {
    while (*p == ' ') p++;
    while (*p && *p != ' ') p++;
  }
  while (*p == ' ') p++;
  return *p >= '0' && *p <= '9' ? atoi(p) : -1;
}

/* /proc/PID/stat: user and system time and the thread count, read after
 * the command's closing parenthesis (a command may hold spaces). */
static int read_proc(perf__hostload *h, pid_t pid)
{
  char rel[64], path[4200], text[2048];
  if (pid) snprintf(rel, sizeof rel, "%ld/stat", (long)pid);
  else snprintf(rel, sizeof rel, "self/stat");
  if (slurp(perf__hostload_proc(rel, path, sizeof path), text, sizeof text)) return -1;
  long long ticks = stat_ticks(text), cut, cst;
  long threads;
  /* fields 3.. : state ppid pgrp session tty tpgid flags minflt cminflt
   * majflt cmajflt utime stime cutime cstime priority nice num_threads */
  if (ticks < 0 || sscanf(strrchr(text, ')') + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
                          "%*u %*u %*u %lld %lld %*d %*d %ld", &cut, &cst, &threads) != 3)
    return -1;
  h->proc_cpu_s = (double)ticks * h->tick_s;
  h->children_cpu_s = (double)(cut + cst) * h->tick_s;
  h->threads = (int)threads;
  h->last_cpu = last_cpu(strrchr(text, ')') + 1);
  return 0;
}

/* Each thread's CPU time from /proc/PID/task/TID/stat. */
static void read_tasks(perf__hostload *h, pid_t pid)
{
  char rel[64], dir[4200], path[4500], text[2048];
  if (pid) snprintf(rel, sizeof rel, "%ld/task", (long)pid);
  else snprintf(rel, sizeof rel, "self/task");
  DIR *d = opendir(perf__hostload_proc(rel, dir, sizeof dir));
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && h->ntasks < PERF__HOSTLOAD_TASKS) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    snprintf(path, sizeof path, "%s/%s/stat", dir, e->d_name);
    long long t = slurp(path, text, sizeof text) ? -1 : stat_ticks(text);
    if (t < 0) continue;
    h->task[h->ntasks].tid = atol(e->d_name);
    h->task[h->ntasks++].ticks = (unsigned long long)t;
  }
  closedir(d);
}

/* See hostload.h. */
int perf__hostload_cgroup_dir(char *buf, size_t len)
{
  char path[4200], text[4096];
  const char *mount = root("PERF_CGROUP_ROOT", "/sys/fs/cgroup");
  const char *rel = "/";
  if (!slurp(perf__hostload_proc("self/cgroup", path, sizeof path), text, sizeof text)) {
    char *v2 = strstr(text, "0::");
    if (v2 && (v2 == text || v2[-1] == '\n')) {
      rel = v2 + 3;
      v2[3 + strcspn(v2 + 3, "\n")] = '\0';
    }
  }
  int n = snprintf(buf, len, "%s%s", mount, strcmp(rel, "/") ? rel : "");
  return n > 0 && (size_t)n < len ? 0 : -1;
}

/* See hostload.h. Walks up from the cgroup to the mount: a parent's limit
 * binds its children. */
double perf__hostload_quota(void)
{
  char dir[4200], path[4300], text[128];
  const char *mount = root("PERF_CGROUP_ROOT", "/sys/fs/cgroup");
  double best = 0;
  if (perf__hostload_cgroup_dir(dir, sizeof dir)) return 0;
  for (;;) {
    long long quota, period;
    snprintf(path, sizeof path, "%s/cpu.max", dir);
    if (!slurp(path, text, sizeof text) && sscanf(text, "%lld %lld", &quota, &period) == 2 &&
        quota > 0 && period > 0) {
      double q = (double)quota / (double)period;
      if (best == 0 || q < best) best = q;
    }
    char *slash = strrchr(dir, '/');
    if (strlen(dir) <= strlen(mount) || !slash) break;
    *slash = '\0';
  }
  return best;
}

/* The cgroup's cpu.stat: nr_throttled and throttled_usec. */
static int read_cgroup(perf__hostload *h)
{
  char dir[4200], path[4300], text[2048];
  if (perf__hostload_cgroup_dir(dir, sizeof dir)) return -1;
  snprintf(path, sizeof path, "%s/cpu.stat", dir);
  if (slurp(path, text, sizeof text)) return -1;
  char *a = strstr(text, "nr_throttled "), *b = strstr(text, "throttled_usec ");
  if (!a || !b) return -1;
  h->nr_throttled = atoll(a + 13);
  h->throttled_usec = atoll(b + 15);
  return 0;
}

/* One cpufreq value of cpu, in kHz; 0 when unreadable. */
static long cpufreq(int cpu, const char *name)
{
  char path[4300], text[64];
  snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d/cpufreq/%s",
           root("PERF_SYS_ROOT", "/sys"), cpu, name);
  return slurp(path, text, sizeof text) ? 0 : atol(text);
}

/* See hostload.h. */
int perf__hostload_siblings(int cpu, int *out, int max)
{
  char path[4300], text[256];
  int n = 0;
  snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d/topology/thread_siblings_list",
           root("PERF_SYS_ROOT", "/sys"), cpu);
  if (slurp(path, text, sizeof text)) return 0;
  for (char *p = text; *p >= '0' && *p <= '9';) { /* "2,18" or "2-3" */
    long lo = strtol(p, &p, 10), hi = lo;
    if (*p == '-') hi = strtol(p + 1, &p, 10);
    for (long c = lo; c <= hi && n < max; c++)
      if (c != cpu) out[n++] = (int)c;
    if (*p == ',') p++;
  }
  return n;
}

/* See hostload.h. */
int perf__hostload_governor(char *buf, size_t len)
{
  cpu_set_t set;
  char path[4300];
  int cpu = 0;
  buf[0] = '\0';
  if (perf__cpumask_get(&set) == 0)
    while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &set)) cpu++;
  snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
           root("PERF_SYS_ROOT", "/sys"), cpu);
  if (slurp(path, buf, len)) return buf[0] = '\0', -1;
  buf[strcspn(buf, "\n")] = '\0';
  return buf[0] ? 0 : -1;
}

/* The mean current and the highest max frequency over this process's
 * CPUs (the first 64 of them: enough to see a governor's choice). */
static void read_freq(perf__hostload *h)
{
  cpu_set_t set;
  double sum = 0;
  int n = 0;
  long top = 0;
  if (perf__cpumask_get(&set)) return;
  for (int cpu = 0; cpu < CPU_SETSIZE && n < 64; cpu++) {
    if (!CPU_ISSET(cpu, &set)) continue;
    long cur = cpufreq(cpu, "scaling_cur_freq"), max = cpufreq(cpu, "cpuinfo_max_freq");
    if (cur <= 0) {
      if (!n) return; /* no cpufreq here (a VM, a container without /sys) */
      continue;
    }
    sum += (double)cur, n++;
    top = max > top ? max : top;
  }
  if (n) h->mhz = sum / n / 1000, h->max_mhz = (double)top / 1000;
}

/* See hostload.h. */
void perf__hostload_read(perf__hostload *h, pid_t pid)
{
  long hz = sysconf(_SC_CLK_TCK);
  *h = (perf__hostload){.t = perf__clock_now(), .tick_s = 1.0 / (double)(hz > 0 ? hz : 100),
                        .last_cpu = -1};
  h->stat_ok = read_stat(h) == 0;
  h->load_ok = read_loadavg(h) == 0;
  h->proc_ok = read_proc(h, pid) == 0;
  read_tasks(h, pid);
  h->cg_ok = read_cgroup(h) == 0;
  h->quota_cpus = perf__hostload_quota();
  read_freq(h);
}
