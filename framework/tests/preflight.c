/* preflight.c — the runner before a run: the preflight line, the unfit thresholds, the warning. */
/* The preflight line from readings (unknown where missing), NVML's readings
 * through the stand-in, the unfit thresholds, the warning and
 * --unfit-runner=error in the fixture, the JSON through --merge. */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/jsontree.h"
#include "host/preflight.h"
#include "selftest.h"
#include "worker/device/gpuwatch.h"
#include "worker/process/probe.h"

/* An H100 and a 16-CPU host as the readings of a quiet runner. */
static perf__preflight quiet(void)
{
  perf__preflight p = {.device = 0};
  perf__preflight_gpu_init(&p.gpu);
  snprintf(p.gpu.name, sizeof p.gpu.name, "NVIDIA H100 80GB HBM3");
  p.gpu.sm_mhz = 1980, p.gpu.app_mhz = 1755, p.gpu.default_app_mhz = 1755, p.gpu.max_mhz = 1980;
  p.gpu.locked = 0, p.gpu.persistence = 1, p.gpu.others = 0, p.gpu.idle = 0;
  snprintf(p.gpu.ecc, sizeof p.gpu.ecc, "on");
  snprintf(p.gpu.mig, sizeof p.gpu.mig, "off");
  p.host = (perf__preflight_host){.cpus = 16, .usable = 16, .threads = 15, .runs = 1, .load1 = 0.4,
                                  .others_cpus = 0.1, .steal_pct = 0, .quota_cpus = NAN,
                                  .throttled_ms = NAN, .window_s = 0.15};
  snprintf(p.host.governor, sizeof p.host.governor, "performance");
  return p;
}

ST_TEST(preflight_line_says_each_reading_and_unknown_where_missing)
{
  char line[2400];
  perf__preflight p = quiet();
  ST_STR(perf__preflight_line(&p, line, sizeof line),
         "preflight GPU 0 (NVIDIA H100 80GB HBM3): SM clock 1980 MHz (application 1755, max 1980; "
         "not locked), persistence on, ECC on, MIG off, other processes: none; host: 16 CPUs "
         "(15 for tests), load 0.4, other CPU use 0.1, steal 0.0 %, governor performance");
  ST_EQ(perf__preflight_judge(&p), 0);
  /* Missing readings are unknown, never guessed. */
  p.gpu.app_mhz = NAN, p.gpu.locked = PERF__PREFLIGHT_UNKNOWN, p.gpu.persistence = -1;
  p.gpu.ecc[0] = '\0', p.gpu.others = NAN, p.host.governor[0] = '\0', p.host.steal_pct = NAN;
  p.host.usable = 4, p.host.threads = 3, p.host.quota_cpus = 4, p.host.throttled_ms = 0;
  perf__preflight_line(&p, line, sizeof line);
  ST_CHECKF(strstr(line, "(application unknown, max 1980; unknown), persistence unknown, ECC "
                         "unknown, MIG off, other processes: unknown; host: 16 CPUs, 4 usable "
                         "(3 for tests)"), "%s", line);
  ST_CHECKF(strstr(line, "steal unknown %, cpu.max 4.0 CPUs (throttled 0 ms), governor unknown"),
            "%s", line);
  ST_EQ(perf__preflight_judge(&p), 0); /* unknown is not unfit */
  /* No NVML: the GPU part says why, once. No device: as a skipped test. */
  p = quiet();
  snprintf(p.gpu.nvml_off, sizeof p.gpu.nvml_off, "cannot load libnvidia-ml.so.1");
  ST_CHECKF(strstr(perf__preflight_line(&p, line, sizeof line),
                   "GPU 0 (NVIDIA H100 80GB HBM3): NVML unavailable (cannot load "
                   "libnvidia-ml.so.1): clocks, persistence, ECC, MIG and other processes "
                   "unknown; host: 16 CPUs"), "%s", line);
  p = quiet();
  p.device = 3;
  snprintf(p.gpu.none, sizeof p.gpu.none, "no NVIDIA driver found");
  ST_CHECKF(!strncmp(perf__preflight_line(&p, line, sizeof line),
                     "preflight GPU 3: no CUDA device (no NVIDIA driver found); host: ", 64),
            "%s", line);
  /* Others busy and idle. */
  p = quiet();
  p.gpu.others = 1, p.gpu.idle = 2;
  snprintf(p.gpu.who, sizeof p.gpu.who, "pid 4145 (python3), 97 %% SM");
  ST_CHECKF(strstr(perf__preflight_line(&p, line, sizeof line),
                   "other processes: pid 4145 (python3), 97 % SM; and 2 idle with a context;"),
            "%s", line);
  p.gpu.others = 0;
  ST_CHECKF(strstr(perf__preflight_line(&p, line, sizeof line),
                   "other processes: none busy, 2 idle with a context;"), "%s", line);
  ST_EQ(perf__preflight_judge(&p), 0); /* an idle context holder is named, not counted */
}

/* Each threshold row: fit just below its limit, unfit at it, with the
 * number in the cause. */
ST_TEST(preflight_unfit_thresholds_each_row_at_its_limit)
{
  char all[2000];
  perf__preflight p = quiet();
  p.gpu.others = 1;
  snprintf(p.gpu.who, sizeof p.gpu.who, "pid 4145 (python3), 97 %% SM");
  ST_EQ(perf__preflight_judge(&p), 1);
  ST_STR(p.cause[0].check, "gpu_processes");
  ST_STR(p.cause[0].text, "1 other process is using GPU 0: pid 4145 (python3), 97 % SM (unfit "
                          "at 1 or more)");
  /* Other CPU use: a quarter of the CPUs (16: 4), at least one (2: 1). */
  p = quiet();
  p.host.others_cpus = 3.9;
  ST_EQ(perf__preflight_judge(&p), 0);
  p.host.others_cpus = 4;
  ST_EQ(perf__preflight_judge(&p), 1);
  ST_STR(p.cause[0].check, "cpu_others");
  ST_CHECKF(strstr(p.cause[0].text, "other processes kept 4.0 of 16 CPUs busy over 0.15 s (unfit "
                                    "at 4.0 or more"), "%s", p.cause[0].text);
  ST_CHECK(strstr(p.cause[0].text, "perfgate run") == NULL); /* this run alone */
  p.host.runs = 2; /* another perfgate run on the host: its work is some of it */
  ST_EQ(perf__preflight_judge(&p), 1);
  ST_CHECKF(strstr(p.cause[0].text, "; 1 other perfgate run sharing these CPUs (the lock directory): "
                                    "their work counts here too"), "%s", p.cause[0].text);
  p.host.runs = 1;
  p.host.cpus = 2, p.host.others_cpus = 0.9;
  ST_EQ(perf__preflight_judge(&p), 0);
  p.host.others_cpus = 1;
  ST_EQ(perf__preflight_judge(&p), 1);
  /* Steal: 5 %. */
  p = quiet();
  p.host.steal_pct = 4.9;
  ST_EQ(perf__preflight_judge(&p), 0);
  p.host.steal_pct = 5;
  ST_EQ(perf__preflight_judge(&p), 1);
  ST_STR(p.cause[0].check, "cpu_steal");
  ST_NEAR(p.cause[0].value, 5, 1e-12);
  ST_NEAR(p.cause[0].limit, 5, 1e-12);
  /* CFS throttling: 2 % of the window (3 ms of 0.15 s). */
  p = quiet();
  p.host.quota_cpus = 4, p.host.throttled_ms = 2.9;
  ST_EQ(perf__preflight_judge(&p), 0);
  p.host.throttled_ms = 60;
  ST_EQ(perf__preflight_judge(&p), 1);
  ST_STR(p.cause[0].check, "cfs_throttled");
  ST_CHECKF(strstr(p.cause[0].text, "cpu.max 4.0 CPUs) throttled it 60 ms of 0.15 s, 40 %"), "%s",
            p.cause[0].text);
  /* Several at once, each named. Unlocked clocks, persistence off and a
   * powersave governor are reported, not unfit. */
  p.host.steal_pct = 9, p.gpu.others = 2, p.gpu.locked = 0, p.gpu.persistence = 0;
  snprintf(p.host.governor, sizeof p.host.governor, "powersave");
  ST_EQ(perf__preflight_judge(&p), 3);
  perf__preflight_causes(&p, all, sizeof all);
  ST_CHECKF(strstr(all, "2 other processes are using GPU 0") && strstr(all, "; the hypervisor stole "
            "9.0 %") && strstr(all, "; the cgroup's CPU quota"), "%s", all);
}

/* The thresholds table of docs/noise.md has a row for each check of the
 * code's table, and no other. */
ST_TEST(preflight_docs_state_each_threshold)
{
  char *text = st_slurp("docs/noise.md"), want[80];
  ST_CHECKF(text != NULL, "docs/noise.md cannot be read (run from the repository's root)");
  if (!text) return;
  char *from = strstr(text, "**Unfit.**"), *to = from ? strstr(from, "Reported, not unfit") : NULL;
  ST_CHECK(from && to);
  if (to) *to = '\0';
  int k = 0;
  for (; from && perf__preflight_check(k); k++) {
    snprintf(want, sizeof want, "\n| `%s` | ", perf__preflight_check(k));
    ST_CHECKF(strstr(from, want), "docs/noise.md's thresholds table lacks %s", want + 1);
  }
  ST_EQ(from ? st_count(from, "\n| `") : -1, k);
  free(text);
}

/* The probe's pipe: every field of the table goes through and back. */
ST_TEST(preflight_gpu_readings_round_trip_through_the_pipe_text)
{
  perf__preflight p = quiet(), back;
  perf__json j = {0};
  snprintf(p.gpu.who, sizeof p.gpu.who, "pid 9 (a\tb\nc), 5 %% SM");
  p.gpu.others = 1, p.gpu.locked = PERF__PREFLIGHT_UNKNOWN, p.gpu.app_mhz = NAN;
  perf__preflight_gpu_text(&j, &p.gpu);
  ST_CHECK(j.s != NULL);
  if (!j.s) return;
  perf__preflight_gpu_parse(j.s, &back.gpu);
  ST_STR(back.gpu.name, "NVIDIA H100 80GB HBM3");
  ST_STR(back.gpu.who, "pid 9 (a b c), 5 % SM");
  ST_STR(back.gpu.ecc, "on");
  ST_EQ(back.gpu.locked, PERF__PREFLIGHT_UNKNOWN);
  ST_EQ(back.gpu.persistence, 1);
  ST_CHECK(isnan(back.gpu.app_mhz));
  ST_NEAR(back.gpu.sm_mhz, 1980, 0);
  ST_NEAR(back.gpu.others, 1, 0);
  ST_STR(back.gpu.none, "");
  perf__json_free(&j);
}

/* Opens nothing; reads the stand-in NVML (lib under the build directory)
 * as the probe's child does, for the GPU at a made-up bus id. */
static void nvml_read(const char *lib, perf__preflight_gpu *g)
{
  char path[600];
  snprintf(path, sizeof path, "%s/%s", st_build_dir(), lib);
  setenv("PERF_NVML_LIB", path, 1);
  perf__gpuwatch_close();
  perf__preflight_gpu_init(g);
  perf__probe_preflight_nvml("0000:00:06.0", g);
}

ST_TEST(preflight_nvml_readings_through_the_stand_in)
{
  perf__preflight_gpu g;
  char line[2400];
  setenv("FAKE_NVML_PROCS", "4000003:97,4000005:0", 1);
  nvml_read("libfakenvml.so", &g);
  ST_STR(g.nvml_off, "");
  ST_NEAR(g.sm_mhz, 1980, 0);
  ST_NEAR(g.app_mhz, 1755, 0);
  ST_NEAR(g.max_mhz, 1980, 0);
  ST_EQ(g.locked, 0);
  ST_EQ(g.persistence, 1);
  ST_STR(g.ecc, "on");
  ST_STR(g.mig, "off");
  ST_NEAR(g.others, 1, 0); /* 4000003 busy; 4000005 holds an idle context */
  ST_NEAR(g.idle, 1, 0);
  ST_STR(g.who, "pid 4000003, 97 % SM");
  perf__preflight p = quiet();
  p.gpu = g;
  snprintf(p.gpu.name, sizeof p.gpu.name, "Fake GPU");
  ST_CHECKF(strstr(perf__preflight_line(&p, line, sizeof line),
                   "(Fake GPU): SM clock 1980 MHz (application 1755, max 1980; not locked), "
                   "persistence on, ECC on, MIG off, other processes: pid 4000003, 97 % SM; and "
                   "1 idle with a context; host:"), "%s", line);
  ST_EQ(perf__preflight_judge(&p), 1);
  /* Locked: an application clock away from its default, or the reason of
   * user-defined clocks. */
  setenv("FAKE_NVML_APP_MHZ", "1410", 1);
  nvml_read("libfakenvml.so", &g);
  ST_EQ(g.locked, 1);
  unsetenv("FAKE_NVML_APP_MHZ");
  setenv("FAKE_NVML_REASONS", "2", 1);
  nvml_read("libfakenvml.so", &g);
  ST_EQ(g.locked, 1);
  unsetenv("FAKE_NVML_REASONS");
  /* Unsupported and failing readings: said so, or unknown. */
  setenv("FAKE_NVML_ECC", "unsupported", 1);
  setenv("FAKE_NVML_PERSISTENCE", "error", 1);
  setenv("FAKE_NVML_MIG", "error", 1);
  setenv("FAKE_NVML_APP_MHZ", "error", 1);
  nvml_read("libfakenvml.so", &g);
  ST_STR(g.ecc, "unsupported");
  ST_EQ(g.persistence, PERF__PREFLIGHT_UNKNOWN);
  ST_STR(g.mig, "");
  ST_CHECK(isnan(g.app_mhz));
  ST_EQ(g.locked, 0); /* the reasons still tell */
  unsetenv("FAKE_NVML_ECC"), unsetenv("FAKE_NVML_PERSISTENCE"), unsetenv("FAKE_NVML_MIG");
  unsetenv("FAKE_NVML_APP_MHZ");
  /* No per-process use: a context holder counts (as the co-tenant check). */
  setenv("FAKE_NVML_PROC_UTIL", "unsupported", 1);
  nvml_read("libfakenvml.so", &g);
  ST_NEAR(g.others, 2, 0);
  unsetenv("FAKE_NVML_PROC_UTIL");
  /* An older driver without the process view: unknown, not none. */
  nvml_read("libfakenvml-old.so", &g);
  ST_CHECK(isnan(g.others));
  /* No NVML at all. */
  setenv("PERF_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
  perf__gpuwatch_close();
  perf__preflight_gpu_init(&g);
  perf__probe_preflight_nvml("0000:00:06.0", &g);
  ST_CHECKF(strstr(g.nvml_off, "cannot load /nonexistent/libnvidia-ml.so.1"), "%s", g.nvml_off);
  ST_CHECK(isnan(g.sm_mhz) && isnan(g.others));
  unsetenv("FAKE_NVML_PROCS");
  unsetenv("PERF_NVML_LIB");
  perf__gpuwatch_close();
}

/* Writes text to dir/rel, making its directories. */
static void put(const char *dir, const char *rel, const char *text)
{
  char path[600], tmp[620];
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')) != NULL; p++) {
    *p = '\0';
    mkdir(path, 0700);
    *p = '/';
  }
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return;
  fputs(text, f);
  if (fclose(f) == 0) rename(tmp, path);
}

/* The fake /proc/stat at step i (each step: 10 ticks busy, 100 idle,
 * steal_ticks stolen). Never fails. */
static void stat_at(const char *dir, unsigned long long i, int steal_ticks)
{
  char text[300];
  snprintf(text, sizeof text, "cpu  %llu 0 0 %llu 0 0 0 %llu 0 0\ncpu0 1 0 0 1 0 0 0 0 0 0\n"
           "cpu1 1 0 0 1 0 0 0 0 0 0\n", 10 * i, 100 * i, (unsigned long long)steal_ticks * i);
  put(dir, "proc/stat", text);
}

/* A step every 5 ms of the monotonic clock: later tickers go on from
 * where earlier ones stopped, so a reading never sees counters go back. */
static unsigned long long step_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return ((unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec) / 5000000ull;
}

/* A fake /proc/stat whose counters grow every 5 ms (stat_at), written by a
 * child until killed: the preflight's window sees the host's CPUs that
 * busy. Its first state is written before this returns, so no reading
 * sees an earlier ticker's (with other steal) however late the child
 * runs on a loaded machine. Returns the child's pid (or -1). */
static pid_t host_ticking(const char *dir, int steal_ticks)
{
  unsigned long long i = step_now();
  stat_at(dir, i, steal_ticks);
  fflush(NULL);
  pid_t pid = fork();
  if (pid != 0) return pid;
  for (;;) {
    usleep(5000);
    unsigned long long now = step_now();
    i = now > i ? now : i + 1;
    stat_at(dir, i, steal_ticks);
  }
}

/* st_exec while the fake /proc/stat under dir ticks (host_ticking). */
static void exec_ticking(st_run *r, const char *dir, int steal_ticks, const char *env,
                         const char *args)
{
  pid_t w = host_ticking(dir, steal_ticks);
  st_exec(r, env, args);
  if (w <= 0) return;
  kill(w, SIGKILL);
  waitpid(w, NULL, 0);
}

/* The first CPU this process may run on. */
static int first_cpu(void)
{
  cpu_set_t set;
  int cpu = 0;
  if (sched_getaffinity(0, sizeof set, &set)) return 0;
  while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &set)) cpu++;
  return cpu;
}

/* A fake host (PERF_PROC_ROOT, PERF_SYS_ROOT, PERF_CGROUP_ROOT, a private
 * lock directory; with a GPU, the stand-in NVML: no other process on it)
 * in a new directory dir; env[len] gets the variables. */
static void fake_host(char *dir, size_t dlen, char *env, size_t len)
{
  char rel[200];
  snprintf(dir, dlen, "/tmp/perfgate-preflight-XXXXXX");
  ST_CHECK(mkdtemp(dir) != NULL);
  put(dir, "proc/loadavg", "0.40 0.30 0.20 1/345 6789\n");
  snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", first_cpu());
  put(dir, rel, "powersave\n");
  mkdir(strcat(strcpy(rel, dir), "/cgroup"), 0700);
  snprintf(env, len, "PERF_PROC_ROOT=%s/proc PERF_SYS_ROOT=%s/sys PERF_CGROUP_ROOT=%s/cgroup "
           "PERF_LOCK_DIR=%s/locks PERF_NVML_LIB=%.200s/libfakenvml.so ", dir, dir, dir, dir,
           st_build_dir());
}

/* The fixture on a quiet fake host, then on one whose hypervisor steals
 * a third of the CPUs' time: a preflight line before the first test
 * (without a GPU: "no CUDA device (why)"), the WARNING naming the cause
 * with its number, the run still run; --unfit-runner=error exits 2 with
 * nothing run and no report written; the JSON holds the readings. */
ST_TEST(preflight_fixture_warns_on_an_unfit_runner_and_error_refuses_to_run)
{
  char dir[64], env[700], args[400], line[2400], json[200];
  st_run r;
  fake_host(dir, sizeof dir, env, sizeof env);
  snprintf(json, sizeof json, "%s/r.json", dir);
  exec_ticking(&r, dir, 0, env, "--filter=host.truth");
  ST_EQ(r.status, 0);
  ST_CHECKF(st_line_with(&r, "perfgate: preflight GPU 0", st_have_gpu() ? "): SM clock" :
                         ": no CUDA device (", line, sizeof line), "%s", r.out);
  ST_CHECKF(strstr(line, "; host: 2 CPUs") && strstr(line, "load 0.4, other CPU use 0.2, steal 0.0 %, "
                                                          "governor powersave"), "%s", line);
  ST_CHECK(!strstr(r.out, "WARNING")); /* a powersave governor is reported, not unfit */
  ST_CHECK(strstr(r.out, "perfgate: preflight GPU 0") < strstr(r.out, "PASS  host.truth"));
  st_run_free(&r);

  snprintf(args, sizeof args, "--filter=host.truth --json=%s", json);
  exec_ticking(&r, dir, 100, env, args); /* steal: 100 of 210 ticks, 47.6 % */
  ST_EQ(r.status, 0);
  ST_CHECKF(st_line_with(&r, "perfgate: WARNING: this runner is unfit for timing (thresholds in "
                         "docs/noise.md): the hypervisor stole 47.6 % of the CPUs' time over", "(/proc/"
                         "stat; unfit at 5 % or more)", line, sizeof line), "%s", r.out);
  st_expect(&r, "host.truth", "PASS", NULL);
  st_run_free(&r);
  char err[300];
  perf__jsontree_node *d = perf__jsontree_read(json, err, sizeof err);
  ST_CHECKF(d != NULL, "%s", err);
  const perf__jsontree_node *pf = perf__jsontree_get(d, "preflight");
  ST_CHECK(pf && pf->type == PERF__J_ARRAY && pf->n == 1);
  if (pf && pf->n == 1) {
    const perf__jsontree_node *e = pf->kids[0], *host = perf__jsontree_get(e, "host"),
                              *unfit = perf__jsontree_get(e, "unfit");
    ST_NEAR(perf__jsontree_num(perf__jsontree_get(host, "steal_pct"), -1), 100.0 / 2.1, 1e-6);
    ST_NEAR(perf__jsontree_num(perf__jsontree_get(host, "cpus"), -1), 2, 0);
    ST_STR(perf__jsontree_get(host, "governor")->text, "powersave");
    ST_CHECK(unfit && unfit->n == 1);
    if (unfit && unfit->n == 1) {
      ST_STR(perf__jsontree_get(unfit->kids[0], "check")->text, "cpu_steal");
      ST_NEAR(perf__jsontree_num(perf__jsontree_get(unfit->kids[0], "limit"), -1), 5, 1e-12);
    }
    if (!st_have_gpu())
      ST_CHECK(strstr(perf__jsontree_get(perf__jsontree_get(e, "gpu"), "no_device")->text,
                      "cudaGetDeviceCount"));
  }
  perf__jsontree_free(d);
  unlink(json);

  snprintf(args, sizeof args, "--filter=host.truth --unfit-runner=error --json=%s", json);
  exec_ticking(&r, dir, 100, env, args);
  ST_EQ(r.status, 2);
  ST_CHECKF(st_line_with(&r, ": --unfit-runner=error: this runner is unfit for timing, nothing was "
                         "run: the hypervisor stole 47.6 %", NULL, line, sizeof line), "%s", r.out);
  ST_CHECK(!strstr(r.out, "host.truth (")); /* no test ran */
  ST_CHECK(access(json, F_OK) != 0);        /* no report */
  st_run_free(&r);
  st_exec(&r, env, "--filter=host.truth --unfit-runner=strict");
  ST_EQ(r.status, 2);
  ST_CHECKF(strstr(r.out, "--unfit-runner: expected warn or error, got 'strict'"), "%s", r.out);
  st_run_free(&r);
  st_rmtree(dir);
}

/* With a GPU: the stand-in NVML shows another process at 97 % SM on it
 * (without one, the GPU part says no CUDA device and nothing is unfit). */
ST_TEST(preflight_fixture_names_another_process_on_the_gpu)
{
  char dir[64], env[900], all[1000], line[2400];
  st_run r;
  fake_host(dir, sizeof dir, env, sizeof env);
  snprintf(all, sizeof all, "%sFAKE_NVML_PROCS=4000003:97 ", env);
  exec_ticking(&r, dir, 0, all, "--filter=host.truth --unfit-runner=error");
  if (!st_have_gpu()) {
    ST_EQ(r.status, 0);
    ST_CHECKF(st_line_with(&r, "perfgate: preflight GPU 0: no CUDA device (", NULL, line, sizeof line),
              "%s", r.out);
    st_expect(&r, "host.truth", "PASS", NULL);
  } else {
    ST_EQ(r.status, 2);
    ST_CHECKF(st_line_with(&r, "perfgate: preflight GPU 0 (", "other processes: pid 4000003, 97 % SM;",
                           line, sizeof line), "%s", r.out);
    ST_CHECKF(st_line_with(&r, "--unfit-runner=error: this runner is unfit for timing, nothing was "
                           "run: 1 other process is using GPU 0: pid 4000003, 97 % SM (unfit at 1 "
                           "or more)", NULL, line, sizeof line), "%s", r.out);
    ST_CHECK(!strstr(r.out, "host.truth ("));
  }
  st_run_free(&r);
  st_rmtree(dir);
}

/* Two shards' reports merged: the merged report holds both preflights. */
ST_TEST(preflight_json_goes_through_merge)
{
  char dir[64], env[900], args[600], out[200];
  st_run r;
  fake_host(dir, sizeof dir, env, sizeof env);
  for (int i = 0; i < 2; i++) {
    char shard[1000];
    snprintf(shard, sizeof shard, "%sGTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=%d ", env, i);
    snprintf(args, sizeof args, "--filter='host.truth:host.skips' --json=%s/s%d.json", dir, i);
    exec_ticking(&r, dir, 0, shard, args);
    ST_CHECKF(strstr(r.out, "perfgate: preflight GPU 0"), "%s", r.out);
    st_run_free(&r);
  }
  snprintf(out, sizeof out, "%s/merged.json", dir);
  snprintf(args, sizeof args, "--merge=%s %s/s0.json %s/s1.json", out, dir, dir);
  st_exec(&r, "", args);
  char err[300];
  perf__jsontree_node *d = perf__jsontree_read(out, err, sizeof err);
  ST_CHECKF(d != NULL, "%s: %s", err, r.out);
  const perf__jsontree_node *pf = perf__jsontree_get(d, "preflight");
  ST_CHECK(pf && pf->type == PERF__J_ARRAY && pf->n == 2);
  for (size_t k = 0; pf && k < pf->n; k++)
    ST_STR(perf__jsontree_get(perf__jsontree_get(pf->kids[k], "host"), "governor")->text, "powersave");
  perf__jsontree_free(d);
  st_run_free(&r);
  st_rmtree(dir);
}

/* --devices=0,1: a line per GPU, both before the runs start, and each
 * GPU's run reports its own GPU's preflight (merged: devices 0 and 1). */
ST_TEST(preflight_devices_one_line_per_gpu_each_in_its_report)
{
  char dir[64], env[900], args[300], out[200], line[2400];
  st_run r;
  fake_host(dir, sizeof dir, env, sizeof env);
  /* the ids are then not checked against this machine's count: device 1
   * runs (its test skipped, its line "no CUDA device") on a 1-GPU host too */
  strncat(env, "CUDA_VISIBLE_DEVICES=0,1 ", sizeof env - strlen(env) - 1);
  snprintf(out, sizeof out, "%s/d.json", dir);
  snprintf(args, sizeof args, "--filter=host.truth --devices=0,1 --json=%s", out);
  exec_ticking(&r, dir, 0, env, args);
  const char *par = strstr(r.out, "in parallel");
  for (int k = 0; k < 2; k++) {
    char head[64];
    snprintf(head, sizeof head, "perfgate: preflight GPU %d", k);
    ST_CHECKF(st_line_with(&r, head, "; host: 2 CPUs", line, sizeof line), "%s", r.out);
    ST_CHECK(par && strstr(r.out, head) < par);
  }
  char err[300];
  perf__jsontree_node *d = perf__jsontree_read(out, err, sizeof err);
  ST_CHECKF(d != NULL, "%s: %s", err, r.out);
  const perf__jsontree_node *pf = perf__jsontree_get(d, "preflight");
  ST_CHECK(pf && pf->type == PERF__J_ARRAY && pf->n == 2);
  for (size_t k = 0; pf && k < pf->n && k < 2; k++)
    ST_NEAR(perf__jsontree_num(perf__jsontree_get(pf->kids[k], "device"), -1), (double)k, 0);
  perf__jsontree_free(d);
  st_run_free(&r);
  st_rmtree(dir);
}
