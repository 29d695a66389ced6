/* hostcpus.c — the host's CPUs and noise, under fake affinity, cgroups and /proc files. */
/* perf_host_threads, runs sharing a lock directory, and the cause phrases. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/hostcause.h"
#include "host/hostload.h"
#include "host/hostshare.h"
#include "worker/claim/hostnoise.h"
#include "selftest.h"

/* dir/rel's text (malloc'd), or a note that there is none: never NULL. */
static char *read_in(const char *dir, const char *rel)
{
  char path[600];
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  char *text = st_slurp(path);
  return text ? text : strdup("(nothing written)");
}

/* Writes text to dir/rel, making its directories. */
static void put(const char *dir, const char *rel, const char *text)
{
  char path[600];
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')) != NULL; p++) {
    *p = '\0';
    mkdir(path, 0700);
    *p = '/';
  }
  FILE *f = fopen(path, "w");
  ST_CHECKF(f != NULL, "cannot write %s", path);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

/* A fresh private lock directory, an empty cgroup and no OpenMP cap: the
 * counts then depend on this test alone (other runs on the machine use
 * the default directory). */
static void isolate(char *dir, size_t len)
{
  char path[600];
  snprintf(dir, len, "/tmp/perf-host-XXXXXX");
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/locks", dir);
  setenv("PERF_LOCK_DIR", path, 1);
  snprintf(path, sizeof path, "%s/cgroup", dir);
  mkdir(path, 0700);
  setenv("PERF_CGROUP_ROOT", path, 1);
  unsetenv("OMP_NUM_THREADS");
}

/* The first CPU of this process's mask other than skip; -1 when none. */
static int some_cpu(int skip)
{
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set)) return -1;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &set) && c != skip) return c;
  return -1;
}

static void pin(int cpu)
{
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  ST_EQ(sched_setaffinity(0, sizeof one, &one), 0);
}

ST_TEST(host_threads_share_rule)
{
  ST_EQ(perf__hostshare_share(16, 1), 15); /* one CPU kept for the runner */
  ST_EQ(perf__hostshare_share(16, 2), 7);  /* two runs: 8 each, less one */
  ST_EQ(perf__hostshare_share(32, 2), 15);
  ST_EQ(perf__hostshare_share(16, 3), 4);
  ST_EQ(perf__hostshare_share(2, 1), 1);
  ST_EQ(perf__hostshare_share(1, 1), 1);   /* nothing to keep back */
  ST_EQ(perf__hostshare_share(3, 4), 1);   /* never 0 */
  ST_EQ(perf__hostshare_share(16, 0), 15);
}

ST_TEST(host_threads_follow_the_affinity_mask)
{
  char dir[64];
  isolate(dir, sizeof dir);
  int a = some_cpu(-1), b = some_cpu(a);
  pin(a);
  ST_EQ(perf__hostshare_cpus(), 1);
  ST_EQ(perf_host_threads(), 1);
  if (b >= 0) {
    cpu_set_t two;
    CPU_ZERO(&two);
    CPU_SET(a, &two);
    CPU_SET(b, &two);
    ST_EQ(sched_setaffinity(0, sizeof two, &two), 0);
    ST_EQ(perf__hostshare_cpus(), 2);
    ST_EQ(perf_host_threads(), 1); /* 2 CPUs, one kept for the runner */
    setenv("OMP_NUM_THREADS", "1", 1);
    ST_EQ(perf_host_threads(), 1);
  }
  st_rmtree(dir);
}

ST_TEST(host_cpus_follow_the_cgroup_quota)
{
  char dir[64], proc[128];
  isolate(dir, sizeof dir);
  snprintf(proc, sizeof proc, "%s/proc", dir);
  setenv("PERF_PROC_ROOT", proc, 1);
  put(dir, "proc/self/cgroup", "1:cpu:/\n0::/ci/job\n");
  put(dir, "cgroup/ci/job/cpu.max", "250000 100000\n");
  put(dir, "cgroup/ci/cpu.max", "max 100000\n");
  ST_NEAR(perf__hostload_quota(), 2.5, 1e-9);
  /* a parent's tighter limit binds its children */
  put(dir, "cgroup/ci/cpu.max", "150000 100000\n");
  ST_NEAR(perf__hostload_quota(), 1.5, 1e-9);
  ST_EQ(perf__hostshare_cpus(), 1); /* floor(1.5), under any affinity */
  ST_EQ(perf_host_threads(), 1);
  put(dir, "cgroup/ci/cpu.max", "max 100000\n");
  put(dir, "cgroup/ci/job/cpu.max", "max 100000\n");
  ST_NEAR(perf__hostload_quota(), 0, 0); /* no quota */
  put(dir, "cgroup/ci/job/cpu.max", "50000 100000\n"); /* half a CPU: still 1 */
  ST_EQ(perf__hostshare_cpus(), 1);
  st_rmtree(dir);
}

/* A child that registers as a run on cpu (-1: this process's CPUs), says
 * so on the pipe and waits to be killed. */
static pid_t run_elsewhere(int cpu)
{
  int fd[2];
  char err[600], c = 0;
  ST_EQ(pipe(fd), 0);
  pid_t pid = fork();
  if (pid == 0) {
    if (cpu >= 0) pin(cpu);
    int lock = perf__hostshare_register(err, sizeof err);
    c = lock >= 0 ? 'y' : 'n';
    if (write(fd[1], &c, 1) != 1) _exit(1);
    for (;;) pause();
  }
  ST_CHECK(pid > 0);
  ST_CHECK(read(fd[0], &c, 1) == 1 && c == 'y');
  close(fd[0]);
  close(fd[1]);
  return pid;
}

/* The run files in the lock directory. */
static int run_files(const char *dir)
{
  char path[600];
  int n = 0;
  snprintf(path, sizeof path, "%s/locks", dir);
  DIR *d = opendir(path);
  if (!d) return 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) n += !strncmp(e->d_name, "run-", 4);
  closedir(d);
  return n;
}

ST_TEST(host_runs_share_cpus_through_the_lock_directory)
{
  char dir[64], err[600], stale[700];
  int kc;
  isolate(dir, sizeof dir);
  ST_EQ(perf__hostshare_runs(&kc), 1); /* no directory yet: this run alone */
  int mine = perf__hostshare_register(err, sizeof err);
  ST_CHECKF(mine >= 0, "%s", err);
  ST_EQ(perf__hostshare_runs(&kc), 1); /* its own file is not another run */
  pid_t other = run_elsewhere(-1);
  ST_EQ(perf__hostshare_runs(&kc), 2);
  ST_EQ(kc, 2);
  /* a file nobody holds a lock on is a dead run's: ignored and removed */
  snprintf(stale, sizeof stale, "%s/locks/run-999999-1", dir);
  FILE *f = fopen(stale, "w");
  ST_CHECK(f != NULL);
  if (f) fputs("pid 999999\ncpus 0-1023\ncgroup /x\n", f), fclose(f);
  /* and a file left by a run that died while registering, a minute old */
  char unfinished[700];
  snprintf(unfinished, sizeof unfinished, "%s/locks/.new-999999-1", dir);
  f = fopen(unfinished, "w");
  ST_CHECK(f != NULL);
  if (f) fclose(f);
  struct timespec old[2] = {{time(NULL) - 120, 0}, {time(NULL) - 120, 0}};
  ST_EQ(utimensat(AT_FDCWD, unfinished, old, 0), 0);
  ST_EQ(run_files(dir), 3);
  ST_EQ(perf__hostshare_runs(&kc), 2);
  ST_EQ(run_files(dir), 2);
  ST_CHECK(access(unfinished, F_OK) != 0);
  /* a run in another container (pid namespace) whose pid is this one's is
   * another run */
  char twin[700];
  snprintf(twin, sizeof twin, "%s/locks/run-twin", dir);
  int held = open(twin, O_WRONLY | O_CREAT, 0600);
  ST_CHECK(held >= 0 && flock(held, LOCK_EX) == 0);
  dprintf(held, "pid %ld\ncpus 0-1023\ncgroup x /\npidns pid:[1]\n", (long)getpid());
  ST_EQ(perf__hostshare_runs(&kc), 3);
  ST_EQ(kc, 2); /* its cgroup is another's */
  unlink(twin);
  close(held);
  /* the other run killed: its file is stale */
  kill(other, SIGKILL);
  waitpid(other, NULL, 0);
  ST_EQ(perf__hostshare_runs(&kc), 1);
  ST_EQ(run_files(dir), 1);
  perf__hostshare_unregister(mine);
  ST_EQ(run_files(dir), 0);
  st_rmtree(dir);
}

/* --devices pins its runs to disjoint CPUs: they do not divide those
 * again, but share the cgroup's quota. */
ST_TEST(host_runs_on_other_cpus_share_only_the_quota)
{
  char dir[64];
  int kc;
  isolate(dir, sizeof dir);
  int a = some_cpu(-1), b = some_cpu(a);
  if (b < 0) {
    st_skip("needs 2 CPUs");
    st_rmtree(dir);
    return;
  }
  pid_t other = run_elsewhere(b);
  pin(a);
  ST_EQ(perf__hostshare_runs(&kc), 1);
  ST_EQ(kc, 2);
  kill(other, SIGKILL);
  waitpid(other, NULL, 0);
  st_rmtree(dir);
}

ST_TEST(host_lock_directory_of_another_user_is_refused)
{
  char dir[64], err[600];
  isolate(dir, sizeof dir);
  unsetenv("PERF_LOCK_DIR");
  char def[4096];
  perf__hostshare_dir(def, sizeof def);
  char want[64];
  snprintf(want, sizeof want, "/perfgate-%ld", (long)getuid());
  ST_CHECKF(strstr(def, want) != NULL, "%s", def);
  /* PERF_LOCK_DIR naming a file, not a directory */
  char file[128];
  snprintf(file, sizeof file, "%s/file", dir);
  put(dir, "file", "x");
  setenv("PERF_LOCK_DIR", file, 1);
  ST_EQ(perf__hostshare_register(err, sizeof err), -1);
  ST_CHECKF(strstr(err, "not a directory") != NULL, "%s", err);
  /* ... or a symbolic link to one: refused, saying so */
  char real[128], link[128];
  snprintf(real, sizeof real, "%s/real", dir);
  snprintf(link, sizeof link, "%s/link", dir);
  ST_EQ(mkdir(real, 0700), 0);
  ST_EQ(symlink(real, link), 0);
  setenv("PERF_LOCK_DIR", link, 1);
  ST_EQ(perf__hostshare_register(err, sizeof err), -1);
  ST_CHECKF(strstr(err, "is a symbolic link (refused: name the directory itself)") != NULL, "%s",
            err);
  char slash[140]; /* with a trailing slash too, and never read for other runs */
  snprintf(slash, sizeof slash, "%s/", link);
  setenv("PERF_LOCK_DIR", slash, 1);
  ST_EQ(perf__hostshare_register(err, sizeof err), -1);
  ST_CHECKF(strstr(err, "is a symbolic link") != NULL, "%s", err);
  /* a live run's file behind the link (what another user could plant) */
  put(dir, "real/run-1-1", "pid 1\ncpus 0-1023\ncgroup /\n");
  char planted[160];
  snprintf(planted, sizeof planted, "%s/run-1-1", real);
  int held = open(planted, O_RDONLY);
  ST_CHECK(held >= 0 && flock(held, LOCK_EX) == 0);
  int kc;
  setenv("PERF_LOCK_DIR", real, 1);
  ST_EQ(perf__hostshare_runs(&kc), 2); /* the directory itself: counted */
  setenv("PERF_LOCK_DIR", link, 1);
  ST_EQ(perf__hostshare_runs(&kc), 1); /* through the link: not read */
  if (held >= 0) close(held);
  st_rmtree(dir);
}

/* Snapshots a and b from the fake files written between them (b 2 s
 * later); returns the cause phrase's result. */
typedef struct fake {
  unsigned long long busy, idle, steal; /* /proc/stat cpu line */
  double own_s;                         /* the process's CPU seconds */
  int threads;
  double busy_s[4];                     /* CPU seconds of threads 100..103 */
  long long throttled, throttled_usec;  /* cpu.stat */
  long mhz;                             /* cpufreq (0: none) */
  unsigned long long cpu0_busy, cpu0_idle, cpu1_busy, cpu1_idle; /* their lines (0: 1) */
  int smt;                              /* cpu0 and cpu1 share a core, and the
                                           process last ran on cpu0 */
} fake;

static void write_fake(const char *dir, const fake *f)
{
  char text[600];
  long hz = sysconf(_SC_CLK_TCK);
  snprintf(text, sizeof text, "cpu  %llu 0 0 %llu 0 0 0 %llu 0 0\ncpu0 %llu 0 0 %llu 0 0 0 0 0 0\n"
           "cpu1 %llu 0 0 %llu 0 0 0 0 0 0\nintr 5\n", f->busy, f->idle, f->steal,
           f->cpu0_busy ? f->cpu0_busy : 1, f->cpu0_idle ? f->cpu0_idle : 1,
           f->cpu1_busy ? f->cpu1_busy : 1, f->cpu1_idle ? f->cpu1_idle : 1);
  put(dir, "proc/stat", text);
  put(dir, "proc/loadavg", "9.10 5.00 3.00 12/345 6789\n");
  /* fields 22-38 zero, then field 39: the CPU it last ran on (0) */
  snprintf(text, sizeof text, "42 (a (b) c) R 1 1 1 0 -1 0 0 0 0 0 %lld 0 0 0 20 0 %d 0%s\n",
           (long long)(f->own_s * (double)hz), f->threads,
           f->smt ? " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0" : "");
  put(dir, "proc/self/stat", text);
  if (f->smt) put(dir, "sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "0-1\n");
  for (int t = 0; t < 4; t++) {
    char rel[64];
    snprintf(rel, sizeof rel, "proc/self/task/%d/stat", 100 + t);
    snprintf(text, sizeof text, "%d (w) S 1 1 1 0 -1 0 0 0 0 0 %lld 0 0 0 20 0 1 0\n", 100 + t,
             (long long)(f->busy_s[t] * (double)hz));
    put(dir, rel, text);
  }
  put(dir, "proc/self/cgroup", "0::/job\n");
  put(dir, "cgroup/job/cpu.max", "200000 100000\n");
  snprintf(text, sizeof text, "usage_usec 1\nnr_periods 9\nnr_throttled %lld\n"
           "throttled_usec %lld\n", f->throttled, f->throttled_usec);
  put(dir, "cgroup/job/cpu.stat", text);
  for (int c = 0; c < 64 && f->mhz; c++) {
    char rel[100];
    snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", c);
    snprintf(text, sizeof text, "%ld\n", f->mhz * 1000);
    put(dir, rel, text);
    snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq", c);
    put(dir, rel, "3500000\n");
  }
}

static int cause_of(const fake *before, const fake *after, int cpus, int threads, char *buf,
                    size_t len)
{
  char dir[64], path[128];
  isolate(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/proc", dir);
  setenv("PERF_PROC_ROOT", path, 1);
  snprintf(path, sizeof path, "%s/sys", dir);
  setenv("PERF_SYS_ROOT", path, 1);
  perf__hostload a, b;
  write_fake(dir, before);
  perf__hostload_read(&a, 0);
  write_fake(dir, after);
  perf__hostload_read(&b, 0);
  b.t = a.t + 2.0;
  ST_CHECK(a.stat_ok && a.load_ok && a.proc_ok && a.cg_ok);
  ST_EQ(b.online, 2);
  ST_EQ(b.runnable, 12);
  ST_NEAR(b.quota_cpus, 2.0, 1e-9);
  int named = perf__hostcause_name(&a, &b, cpus, threads, buf, len);
  st_rmtree(dir);
  return named;
}

/* Another process keeps the runner's core's other hardware thread busy
 * 95 % of the time while the run uses one CPU: named (below the others'
 * threshold: 0.95 of 2 CPUs). Not without the topology; not when the run's
 * own threads are what kept the core busy (a helper thread on the sibling,
 * or the runner itself having run there). */
ST_TEST(host_cause_names_a_busy_smt_sibling)
{
  char buf[600];
  long hz = sysconf(_SC_CLK_TCK);
  unsigned long long t2 = (unsigned long long)(2 * hz); /* one CPU for 2 s */
  fake a = {.busy = 1000, .idle = 1000, .own_s = 1, .threads = 1, .cpu0_busy = 500,
            .cpu0_idle = 500, .cpu1_busy = 500, .cpu1_idle = 500, .smt = 1};
  fake b = a;
  b.own_s += 2;                                   /* this run: cpu0, all the time */
  b.cpu0_busy += t2;
  b.cpu1_busy += t2 * 95 / 100, b.cpu1_idle += t2 - t2 * 95 / 100;
  b.busy += t2 + t2 * 95 / 100, b.idle += t2 - t2 * 95 / 100;
  ST_EQ(cause_of(&a, &b, 2, 1, buf, sizeof buf), 1);
  ST_CHECKF(strstr(buf, "CPU 0, where the runner's thread last ran, shares its core with CPU 1, "
                        "which other processes kept busy 95 % of the time (SMT)") != NULL,
            "%s", buf);
  a.smt = b.smt = 0; /* no topology: nothing known of siblings */
  ST_EQ(cause_of(&a, &b, 2, 1, buf, sizeof buf), 0);
  ST_CHECKF(strstr(buf, "no host cause seen") != NULL, "%s", buf);
  a.smt = b.smt = 1;
  b.own_s = a.own_s + 3.9; /* the run's own threads kept both CPUs busy */
  cause_of(&a, &b, 2, 1, buf, sizeof buf);
  ST_CHECKF(strstr(buf, "SMT") == NULL, "%s", buf);
  b.own_s = a.own_s + 2; /* the runner ran on cpu1, then moved to cpu0 */
  b.cpu0_busy = a.cpu0_busy + t2 / 20, b.cpu1_busy = a.cpu1_busy + t2 - t2 / 20;
  cause_of(&a, &b, 2, 1, buf, sizeof buf);
  ST_CHECKF(strstr(buf, "SMT") == NULL, "%s", buf);
}

ST_TEST(host_cause_names_other_processes)
{
  char buf[600];
  fake a = {.busy = 1000, .idle = 9000, .own_s = 1, .threads = 5};
  fake b = a;
  b.busy += 380, b.idle += 20; /* 95 % busy over 2 CPUs for 2 s (ticks at 100 Hz) */
  long hz = sysconf(_SC_CLK_TCK);
  b.busy = a.busy + (unsigned long long)(3.8 * (double)hz);
  b.idle = a.idle + (unsigned long long)(0.2 * (double)hz);
  ST_EQ(cause_of(&a, &b, 2, 1, buf, sizeof buf), 1);
  ST_CHECKF(strstr(buf, "other processes kept the CPUs 95 % busy (1.9 of 2 CPUs besides this "
                        "run; load 9.1, 12 runnable)") != NULL, "%s", buf);
}

ST_TEST(host_cause_names_the_workloads_own_threads)
{
  char buf[600];
  long hz = sysconf(_SC_CLK_TCK);
  fake a = {.busy = 1000, .idle = 9000, .own_s = 10, .threads = 21, .busy_s = {5, 1, 1, 1}};
  fake b = a;
  b.busy += (unsigned long long)(4 * hz); /* both CPUs busy, all of it ours */
  b.own_s += 3.8;
  /* over 2 s, three threads ran 1.2 s each, one 0.1 s (under a tenth) */
  b.busy_s[0] += 1.2, b.busy_s[1] += 1.2, b.busy_s[2] += 1.2, b.busy_s[3] += 0.1;
  ST_EQ(cause_of(&a, &b, 2, 1, buf, sizeof buf), 1);
  ST_CHECKF(strstr(buf, "the workload ran 3 busy threads on 2 CPUs (the worker used 1.9 CPUs on "
                        "average, 21 threads in all) while the runner needs one: use "
                        "perf_host_threads() (1 here) for its threads") != NULL,
            "%s", buf);
  /* one busy thread is what perf_host_threads() allows here: not a cause */
  b.busy_s[1] = a.busy_s[1], b.busy_s[2] = a.busy_s[2];
  b.busy = a.busy + (unsigned long long)(1.2 * hz), b.idle = a.idle + (unsigned long long)(2.8 * hz);
  b.own_s = a.own_s + 1.2;
  ST_EQ(cause_of(&a, &b, 2, 1, buf, sizeof buf), 0);
}

ST_TEST(host_cause_names_steal_throttling_and_the_clock)
{
  char buf[600];
  long hz = sysconf(_SC_CLK_TCK);
  fake a = {.busy = 1000, .idle = 9000, .steal = 100, .own_s = 1, .throttled = 3};
  fake b = a;
  b.busy += (unsigned long long)(0.4 * hz), b.idle += (unsigned long long)(2.8 * hz);
  b.steal += (unsigned long long)(0.8 * hz); /* 20 % of 4 CPU-seconds */
  ST_EQ(cause_of(&a, &b, 2, 1, buf, sizeof buf), 1);
  ST_CHECKF(strstr(buf, "the hypervisor took 20 % of the CPUs' time (steal, /proc/stat)"), "%s",
            buf);
  b.throttled = 15, b.throttled_usec = 600000; /* 30 % of 2 s: more than the steal */
  ST_EQ(cause_of(&a, &b, 2, 1, buf, sizeof buf), 1);
  ST_CHECKF(strstr(buf, "the cgroup's CPU quota (cpu.max: 2.0 CPUs) throttled this run 12 "
                        "times, 600 ms of 2.0 s (cpu.stat)"), "%s", buf);
  fake c = {.busy = 1000, .idle = 9000, .own_s = 1, .mhz = 1200};
  fake d = c;
  d.idle += (unsigned long long)(4 * hz);
  ST_EQ(cause_of(&c, &d, 2, 1, buf, sizeof buf), 1);
  ST_CHECKF(strstr(buf, "the CPUs ran at 1200 MHz of 3500 MHz (cpufreq)"), "%s", buf);
  d.mhz = 3400; /* near the top: no cause */
  ST_EQ(cause_of(&c, &d, 2, 1, buf, sizeof buf), 0);
  ST_CHECKF(strstr(buf, "no host cause seen: CPUs 0 % busy (this run 0.0 of 2), load 9.1"), "%s",
            buf);
}

/* A decided claim whose kept samples include ones the host preempted on
 * every retake: INCONCLUSIVE on a clock that times the host, decided on
 * the device clock (which times the GPU alone). */
ST_TEST(host_disturbed_samples_never_decide_a_host_timed_claim)
{
  char dir[64], buf[1000] = "; 4 samples retaken";
  isolate(dir, sizeof dir);
  perf__hostload before;
  perf__hostnoise_begin(&before);
  perf__retake d = {.retaken = 4, .kept_disturbed = 1};
  perf__verdict_result r = {.verdict = PERF_OUTCOME_PASS};
  perf__hostnoise_judge(&before, PERF_CLOCK_DEVICE, &d, &r, buf, sizeof buf);
  ST_EQ(r.verdict, PERF_OUTCOME_PASS);
  ST_STR(buf, "; 4 samples retaken");
  static const perf_clock host[] = {PERF_CLOCK_EVENTS, PERF_CLOCK_WALL, PERF_CLOCK_SUBMIT};
  for (int i = 0; i < 3; i++) {
    r = (perf__verdict_result){.verdict = i ? PERF_OUTCOME_FAIL : PERF_OUTCOME_PASS};
    snprintf(buf, sizeof buf, "; 4 samples retaken");
    perf__hostnoise_judge(&before, host[i], &d, &r, buf, sizeof buf);
    ST_EQ(r.verdict, PERF_OUTCOME_INCONCLUSIVE);
    ST_CHECKF(r.why && strstr(r.why, "preempted"), "%s", r.why ? r.why : "(null)");
    ST_CHECKF(!strncmp(buf, "; 4 samples retaken; the host: ", 31), "%s", buf);
  }
  /* nothing kept disturbed: the verdict stands, nothing added */
  d.kept_disturbed = 0, d.retaken = 0;
  r = (perf__verdict_result){.verdict = PERF_OUTCOME_PASS};
  buf[0] = '\0';
  perf__hostnoise_judge(&before, PERF_CLOCK_WALL, &d, &r, buf, sizeof buf);
  ST_EQ(r.verdict, PERF_OUTCOME_PASS);
  ST_STR(buf, "");
  st_rmtree(dir);
}

/* Two perftest processes at once on one lock directory: the second sees
 * the first (2 runs share the CPUs); once the first is killed (kill -9:
 * its file stays, its lock goes) a third sees only itself, and the dead
 * run's file is gone. A run under taskset -c with one CPU gets 1 thread. */
ST_TEST(host_two_perftest_processes_see_each_other)
{
  char dir[64], cmd[4096];
  isolate(dir, sizeof dir);
  snprintf(cmd, sizeof cmd,
           "d=%s; f=%s; export PERF_LOCK_DIR=$d/locks; unset OMP_NUM_THREADS; "
           "PERFGATE_FIXTURE_HOLD=$d/release $f --filter=host.host_threads >$d/a.out 2>&1 & a=$!; "
           "for i in $(seq 300); do ls $d/locks 2>/dev/null | grep -q '^run-' && break; "
           "sleep 0.1; done; "
           "$f --verbose --filter=host.host_threads >$d/b.out 2>&1; "
           "kill -9 $a; { wait $a; } 2>/dev/null; touch $d/release; "
           "taskset -c $(cut -d' ' -f39 /proc/self/stat) $f --verbose "
           "--filter=host.host_threads >$d/c.out 2>&1; "
           "ls $d/locks | grep -c '^run-' >$d/left; exit 0",
           dir, st_fixture);
  ST_EQ(st_shell(cmd), 0);
  char *b = read_in(dir, "b.out"), *c = read_in(dir, "c.out"), *left = read_in(dir, "left");
  ST_CHECKF(strstr(b, "perfgate runs sharing them: 2 (2 in this cgroup"), "%s", b);
  ST_CHECKF(strstr(c, "CPUs: 1 (affinity 1") &&
                strstr(c, "perfgate runs sharing them: 1 (1 in this cgroup") &&
                strstr(c, "perf_host_threads(): 1") && strstr(c, "| host threads: 1 ("),
            "%s", c);
  ST_CHECKF(atoi(left) == 0 && left[0] == '0', "run files left: %s", left);
  free(b), free(c), free(left);
  st_rmtree(dir);
}

/* OMP_PROC_BIND (or OMP_PLACES, GOMP_CPU_AFFINITY) makes libgomp bind a
 * perftest's first thread to one CPU before main(): the run still has all
 * of this harness's CPUs, and its worker's OpenMP places cover them (it
 * used to inherit the one CPU: every OpenMP thread on it, up to 10x slower
 * on the 16-CPU H100 host, and confident FAILs). A --devices child keeps
 * its own share (half the CPUs each here), not widened back to all. */
ST_TEST(host_openmp_binding_keeps_the_runs_cpus)
{
  char dir[64], cmd[4096], want[160];
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) || CPU_COUNT(&set) < 2) {
    st_skip("needs 2 CPUs");
    return;
  }
  isolate(dir, sizeof dir);
  snprintf(cmd, sizeof cmd,
           "d=%s; f=%s; export PERF_LOCK_DIR=$d/locks OMP_PROC_BIND=true; "
           "unset OMP_NUM_THREADS OMP_PLACES GOMP_CPU_AFFINITY; "
           "$f --verbose --filter=host.host_threads >$d/out 2>&1 && "
           "CUDA_VISIBLE_DEVICES=0,1 $f --verbose --devices=0,1 --filter=host.host_threads "
           ">$d/devices 2>&1", /* ids not checked against the GPUs (reports.c) */
           dir, st_fixture);
  ST_EQ(st_shell(cmd), 0);
  char *out = read_in(dir, "out"), *devices = read_in(dir, "devices");
  int n = CPU_COUNT(&set);
  snprintf(want, sizeof want, "perfgate: CPUs: %d (affinity %d,", n, n);
  ST_CHECKF(strstr(out, want) != NULL, "%s\n%s", want, out);
  snprintf(want, sizeof want, "OpenMP places: %d\n", n);
  ST_CHECKF(strstr(out, want) != NULL, "%s\n%s", want, out);
  ST_CHECKF(!strstr(out, "places reduced"), "%s", out);
  for (int k = 0; k < 2; k++) {
    snprintf(want, sizeof want, "[gpu %d] perfgate: CPUs: %d (affinity %d,", k, n / 2, n / 2);
    ST_CHECKF(strstr(devices, want) != NULL, "%s\n%s", want, devices);
  }
  free(out), free(devices);
  st_rmtree(dir);
}

/* A test that times out says how the host was loaded while it ran: the
 * supervisor reads the host's numbers at the test's start and before it
 * kills the worker (here from a fake /proc whose CPUs the test makes 95 %
 * busy). */
ST_TEST(host_timeout_names_the_hosts_load)
{
  char dir[64], env[600], line[2000];
  isolate(dir, sizeof dir);
  put(dir, "proc/stat", "cpu  1000 0 0 9000 0 0 0 0 0 0\ncpu0 1 0 0 1 0 0 0 0 0 0\n"
                        "cpu1 1 0 0 1 0 0 0 0 0 0\n");
  put(dir, "proc/loadavg", "9.10 5.00 3.00 12/345 6789\n");
  snprintf(env, sizeof env, "PERF_PROC_ROOT=%s/proc PERFGATE_FIXTURE_BUSY_STAT=%s/proc/stat ",
           dir, dir);
  st_run r;
  st_exec(&r, env, st_slow() ? "--filter=host.hang_beside_busy_cpus --timeout=20"
                             : "--filter=host.hang_beside_busy_cpus --timeout=5");
  const char *o = st_outcome(&r, "host.hang_beside_busy_cpus", line, sizeof line);
  ST_CHECKF(!strcmp(o, "FAIL") && strstr(line, "(worker killed); the host: other processes kept "
                                               "the CPUs 95 % busy (1.9 of 2 CPUs besides this "
                                               "run; load 9.1, 12 runnable)"),
            "%s", r.out);
  st_run_free(&r);
  st_rmtree(dir);
}

/* --devices=0,1 (without a GPU each device's run still runs): each child
 * registers its own half of the CPUs (however many the host has) (the parent does not: 2 files while
 * they run), sees no other run on them, and its OpenMP threads agree with
 * perf_host_threads(). */
ST_TEST(host_devices_children_register_their_own_cpus)
{
  char dir[64], cmd[4096];
  if (some_cpu(some_cpu(-1)) < 0) {
    st_skip("needs 2 CPUs");
    return;
  }
  isolate(dir, sizeof dir);
  snprintf(cmd, sizeof cmd,
           "d=%s; export PERF_LOCK_DIR=$d/locks PERFGATE_FIXTURE_HOLD=$d/release; "
           "unset OMP_NUM_THREADS; export CUDA_VISIBLE_DEVICES=0,1; " /* on a 1-GPU host too */
           "%s --verbose --devices=0,1 --filter=host.host_threads >$d/out 2>&1 & a=$!; "
           "for i in $(seq 300); do [ \"$(ls $d/locks 2>/dev/null | grep -c '^run-')\" = 2 ] "
           "&& break; sleep 0.1; done; ls $d/locks | grep -c '^run-' >$d/seen; "
           "touch $d/release; wait $a",
           dir, st_fixture);
  ST_EQ(st_shell(cmd), 0);
  char *out = read_in(dir, "out"), *seen = read_in(dir, "seen");
  ST_CHECKF(atoi(seen) == 2, "run files while both ran: %s", seen);
  cpu_set_t set;
  int half = sched_getaffinity(0, sizeof set, &set) ? 1 : CPU_COUNT(&set) / 2;
  int threads = perf__hostshare_share(half, 1); /* 1 on the 2-CPU CI machine, 7 on 16 */
  for (int k = 0; k < 2; k++) {
    char want[200];
    snprintf(want, sizeof want, "[gpu %d] perfgate: CPUs: %d (affinity %d, no cpu.max quota); "
             "perfgate runs sharing them: 1 (", k, half, half);
    ST_CHECKF(strstr(out, want) != NULL, "%s\n%s", want, out);
    snprintf(want, sizeof want, "[gpu %d]       | host threads: %d (OMP_NUM_THREADS=%d)", k,
             threads, threads);
    ST_CHECKF(strstr(out, want) != NULL, "%s\n%s", want, out);
  }
  free(out), free(seen);
  st_rmtree(dir);
}
