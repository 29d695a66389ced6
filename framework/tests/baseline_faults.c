/* baseline_faults.c — a baseline file survives faults during an update. */
/* kill -9 mid-update, a read-only directory, a full disk, two updaters at
 * once. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "baseline/baseline.h"
#include "baseline/blemit.h"
#include "baseline/blyaml.h"
#include "supervisor/baselinedir.h"
#include "baseline/blrule.h"
#include "selftest.h"

enum { OLD_ENTRIES = 1000, KILLS = 40, RACES = 5, HELD_RACES = 3 };

/* CLOCK_MONOTONIC in seconds; never fails. */
static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* An "old" file at path: n entries of tests the update does not run, and
 * one ratio, so that an update must keep them all. */
static void write_old(const char *path, size_t n)
{
  perf__baseline b;
  char err[400];
  perf__baseline_init(&b);
  perf__baseline_set_fp(&b, "host", "old machine");
  for (size_t i = 0; i < n; i++) {
    perf__baseline_entry e = {.clock = "wall", .median_s = 1e-3 + 1e-9 * (double)i,
                        .spread_s = 1e-5, .samples = 100, .tolerance = 0.05,
                        .recorded = "2026-01-01", .workload = "w"};
    snprintf(e.test, sizeof e.test, "old.t%05zu", i);
    ST_EQ(perf__baseline_put_entry(&b, &e), 0);
  }
  perf__baseline_ratio r = {.test = "old.ratio", .claim = "FASTER(a, b, 2)", .ratio = 3,
                      .recorded = "2026-01-01"};
  ST_EQ(perf__baseline_put_ratio(&b, &r), 0);
  ST_EQ(perf__blemit_save(path, &b, err, sizeof err), 0);
  perf__baseline_free(&b);
}

/* Makes dir (a mkdtemp template) with this machine's file in it holding n
 * old entries; the file's name goes to path. Returns its bytes (malloc'd). */
static char *old_file_in(char *dir, char *path, size_t len, size_t n)
{
  ST_CHECK(mkdtemp(dir) != NULL);
  st_host_baseline_file(dir, path, len);
  write_old(path, n);
  return st_slurp(path);
}

/* Puts bytes back as the file (the test's own restore, not under test). */
static void restore(const char *path, const char *bytes)
{
  FILE *f = fopen(path, "wb");
  ST_CHECK(f && fputs(bytes, f) >= 0 && fclose(f) == 0);
}

/* What a fault left: 0 the old file byte for byte, 1 a complete new one
 * (it parses, keeps every old entry and ratio and has the updated test's
 * want_new entries and perfgate's host reference), -1 anything else. */
static int classify(const char *path, const char *old, size_t old_entries,
                    size_t want_new)
{
  char *now_bytes = st_slurp(path);
  if (now_bytes && !strcmp(now_bytes, old)) {
    free(now_bytes);
    return 0;
  }
  free(now_bytes);
  perf__baseline b;
  char err[400];
  int ok = perf__blyaml_load(path, &b, err, sizeof err) == 0 &&
           b.nentries == old_entries + want_new + 1 && b.nratios >= 1 &&
           perf__baseline_find(&b, PERF__BLR_REFERENCE_TEST, "host_reference") &&
           perf__baseline_find(&b, "old.t00000", "w") && perf__baseline_find(&b, "bl.host_work", "w");
  char last[32];
  snprintf(last, sizeof last, "old.t%05zu", old_entries - 1);
  ok = ok && perf__baseline_find(&b, last, "w");
  perf__baseline_free(&b);
  return ok ? 1 : -1;
}

typedef struct spawn_opts {
  int out_fd;      /* stdout and stderr; -1: /dev/null */
  long fsize;      /* RLIMIT_FSIZE in bytes; 0: unlimited */
  const char *stop_at_rename; /* "before" or "after": build/libstoprename.so stops it there */
} spawn_opts;

/* Starts the fixture with args (NULL-terminated, without argv[0]).
 * Returns its pid, or -1. */
static pid_t spawn(const char *const *args, spawn_opts o)
{
  pid_t pid = fork();
  if (pid != 0) return pid;
  int fd = o.out_fd >= 0 ? o.out_fd : open("/dev/null", O_WRONLY);
  dup2(fd, 1);
  dup2(fd, 2);
  if (o.fsize) {
    struct rlimit rl = {(rlim_t)o.fsize, (rlim_t)o.fsize};
    if (setrlimit(RLIMIT_FSIZE, &rl)) _exit(126);
  }
  if (o.stop_at_rename) {
    char shim[1200];
    snprintf(shim, sizeof shim, "%s/libstoprename.so", st_build_dir());
    if (setenv("LD_PRELOAD", shim, 1) || setenv("PERF_STOP_AT_RENAME", o.stop_at_rename, 1)) _exit(126);
  }
  const char *argv[16] = {st_fixture};
  for (int i = 0; args[i] && i < 14; i++) argv[i + 1] = args[i];
  execv(st_fixture, (char *const *)argv);
  _exit(127);
}

/* Waits for pid; its exit code, or 128 + signal (-1: no such child). */
static int wait_code(pid_t pid)
{
  int st = 0;
  if (pid <= 0) return -1;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Reads from fd until text appears or end of file; 1 when it appeared. */
static int read_until(int fd, const char *text)
{
  char buf[1 << 16];
  size_t len = 0;
  for (;;) {
    ssize_t n = read(fd, buf + len, sizeof buf - 1 - len);
    if (n <= 0) return 0;
    len += (size_t)n;
    buf[len] = '\0';
    if (strstr(buf, text)) return 1;
    if (len > sizeof buf / 2) { /* keep the tail: the text may straddle */
      memmove(buf, buf + len - 256, 256);
      len = 256;
    }
  }
}

/* One update of bl.host_work into dir; kills it with SIGKILL delay_s after
 * it prints its "baselines:" line (delay_s < 0: lets it finish). Returns the
 * seconds from that line to its end, or -1 when the line never came. */
static double update_and_kill(const char *dir, double delay_s, int *code)
{
  char dirarg[700];
  snprintf(dirarg, sizeof dirarg, "--baseline-dir=%s", dir);
  const char *args[] = {"--update-baselines", "--accept-wide", "--filter=bl.host_work", "--color=never",
                        "--budget=0.05", dirarg, NULL};
  int p[2];
  if (!ST_CHECK(pipe(p) == 0)) return -1;
  pid_t pid = spawn(args, (spawn_opts){.out_fd = p[1]});
  close(p[1]);
  int seen = pid > 0 && read_until(p[0], "\nbaselines: ");
  double t0 = now();
  if (seen && delay_s >= 0 && pid > 0) {
    struct timespec ts = {(time_t)delay_s, (long)((delay_s - (double)(time_t)delay_s) * 1e9)};
    nanosleep(&ts, NULL);
    kill(pid, SIGKILL);
  }
  char sink[4096];
  while (read(p[0], sink, sizeof sink) > 0) {
  }
  close(p[0]);
  *code = wait_code(pid);
  return seen ? now() - t0 : -1;
}

/* An update of bl.host_work into dir stopped just before or just after
 * the rename of its baseline file (build/libstoprename.so) and killed
 * there with SIGKILL: what it left, as classify() says, with the number of
 * temporary files in *temps; -2 when it did not stop there. */
static int kill_at_rename(const char *dir, const char *when, const char *path, const char *old,
                          int *temps)
{
  char dirarg[700];
  snprintf(dirarg, sizeof dirarg, "--baseline-dir=%s", dir);
  const char *args[] = {"--update-baselines", "--accept-wide", "--filter=bl.host_work", "--color=never",
                        "--budget=0.05", dirarg, NULL};
  pid_t pid = spawn(args, (spawn_opts){.out_fd = -1, .stop_at_rename = when});
  int st = 0;
  while (pid > 0 && waitpid(pid, &st, WUNTRACED) < 0 && errno == EINTR) {
  }
  int stopped = pid > 0 && WIFSTOPPED(st);
  if (stopped) {
    kill(pid, SIGKILL);
    wait_code(pid);
  }
  ST_CHECKF(stopped, "the update was not stopped %s its rename (%s %d)", when,
            WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
  *temps = st_temp_files(dir);
  return stopped ? classify(path, old, OLD_ENTRIES, 1) : -2;
}

/* kill -9 during an update: stopped and killed just before the rename, the
 * old file is whole and the new one waits under its temporary name; just
 * after, the new file is whole and no temporary is left (the update
 * removed the one the first kill left before it wrote). Then at random
 * moments of the write (KILLS times, each a uniform delay within the time
 * the whole write took): the file is always the complete old one or the
 * complete new one. Where the random kills land depends on the machine's
 * load, so they are counted, not checked; the two fixed moments above
 * cover both sides of the rename whatever the load. The next update
 * removes what the killed ones left. */
ST_TEST(baseline_kill_9_during_update_leaves_old_or_new_file)
{
  char dir[] = "/tmp/perfgate-kill-XXXXXX", path[600];
  char *old = old_file_in(dir, path, sizeof path, OLD_ENTRIES);
  int temps = -1, c = kill_at_rename(dir, "before", path, old, &temps);
  ST_CHECKF(c == 0 && temps == 1, "killed before the rename: left %d (0: old), %d temporaries", c,
            temps);
  restore(path, old);
  c = kill_at_rename(dir, "after", path, old, &temps);
  ST_CHECKF(c == 1 && temps == 0, "killed after the rename: left %d (1: new), %d temporaries "
            "(the first kill's was removed, its own renamed)", c, temps);
  /* Calibrate: the median, over 3 whole updates, of the time from the
   * "baselines:" line to the end (load, merge, write, rename, exit). */
  int code;
  double w[3];
  for (int i = 0; i < 3; i++) {
    restore(path, old);
    w[i] = update_and_kill(dir, -1, &code);
    ST_CHECKF(code == 0 && w[i] > 0, "calibration update %d: exit %d", i, code);
    ST_EQ(classify(path, old, OLD_ENTRIES, 1), 1);
  }
  double window = w[0] + w[1] + w[2] - fmax(w[0], fmax(w[1], w[2])) - fmin(w[0], fmin(w[1], w[2]));
  srand(42);
  int outcome[3] = {0, 0, 0}, with_temp = 0, finished = 0;
  for (int i = 0; i < KILLS; i++) {
    restore(path, old);
    double delay = window * (double)rand() / RAND_MAX;
    update_and_kill(dir, delay, &code);
    finished += code != 128 + SIGKILL;
    with_temp += st_temp_files(dir) > 0;
    c = classify(path, old, OLD_ENTRIES, 1);
    outcome[c + 1]++;
    if (!ST_CHECKF(c >= 0, "kill %d (%.1f ms after the line) left a damaged file", i,
                   delay * 1e3))
      break;
  }
  printf("    kill -9 x%d (0-%.0f ms after 'baselines:'): %d old, %d new, %d damaged; "
         "%d left a temporary file; %d finished first\n",
         KILLS, window * 1e3, outcome[1], outcome[2], outcome[0], with_temp, finished);
  ST_EQ(outcome[0], 0);
  /* the next update succeeds and removes every leftover */
  int had = st_temp_files(dir);
  st_run r;
  char args[800];
  snprintf(args, sizeof args, "--update-baselines --accept-wide --filter=bl.host_work --color=never "
           "--budget=0.05 --baseline-dir=%s", dir);
  st_exec(&r, "", args);
  ST_EQ(r.status, 0);
  ST_EQ(st_temp_files(dir), 0);
  ST_CHECK(!had || strstr(r.out, "temporary file") != NULL);
  st_run_free(&r);
  free(old);
  st_rmtree(dir);
}

/* Reads fd to its end (malloc'd, NUL-terminated). */
static char *read_all(int fd)
{
  size_t len = 0, cap = 1 << 16;
  char *buf = malloc(cap);
  ssize_t n;
  while (buf && (n = read(fd, buf + len, cap - len - 1)) > 0)
    if ((len += (size_t)n) + 1 == cap) buf = realloc(buf, cap *= 2);
  if (buf) buf[len] = '\0';
  return buf;
}

/* Runs one update of bl.host_work into dir with o; output into *out
 * (through a pipe: a file-size limit must not cut it). */
static int update_with(const char *dir, spawn_opts o, char **out)
{
  char dirarg[700];
  int p[2];
  snprintf(dirarg, sizeof dirarg, "--baseline-dir=%s", dir);
  if (!ST_CHECK(pipe(p) == 0)) return -1;
  o.out_fd = p[1];
  const char *args[] = {"--update-baselines", "--accept-wide", "--filter=bl.host_work", "--color=never", dirarg, NULL};
  pid_t pid = spawn(args, o);
  close(p[1]);
  *out = read_all(p[0]);
  close(p[0]);
  if (!*out) *out = calloc(1, 1);
  return wait_code(pid);
}

/* A directory the updater may not write: exit 2 before anything runs,
 * naming the directory and the reason; the file untouched. */
ST_TEST(baseline_read_only_directory_is_a_clear_error)
{
  char dir[] = "/tmp/perfgate-ro-XXXXXX", path[600];
  char *old = old_file_in(dir, path, sizeof path, 3), *out;
  ST_CHECK(chmod(dir, 0555) == 0);
  /* Root writes anywhere: as root, a copy of the fixture runs as uid 65534
   * (one it can reach wherever the checkout lies). */
  st_nobody nb = {.dir = ""};
  char why[600];
  int code = -1;
  if (geteuid() != 0)
    code = update_with(dir, (spawn_opts){0}, &out);
  else if (st_nobody_begin(&nb, why, sizeof why) == 0) {
    st_run r;
    char args[800];
    snprintf(args, sizeof args, "--update-baselines --accept-wide --filter=bl.host_work --color=never "
             "--baseline-dir=%s", dir);
    st_nobody_exec(&r, &nb, args);
    code = r.status, out = r.out;
  } else
    out = strdup(why);
  if (code < 0) {
    st_skip("as root, and no unprivileged user can run the fixture: %s", out);
  } else {
    ST_CHECKF(code == 2 && strstr(out, "cannot write in") && strstr(out, dir) &&
                  strstr(out, "Permission denied") && strstr(out, "nothing was run") &&
                  !strstr(out, "PASS "),
              "exit %d: %s", code, out);
    printf("    read-only directory: exit %d: %.*s\n", code, (int)strcspn(out, "\n"), out);
  }
  ST_EQ(classify(path, old, 3, 1), 0); /* untouched */
  ST_EQ(st_temp_files(dir), 0);
  chmod(dir, 0700);
  st_nobody_end(&nb);
  free(out);
  free(old);
  st_rmtree(dir);
}

/* A file-size limit below the new file's size: the write fails with EFBIG
 * (not SIGXFSZ), exit 2 naming it; the old file untouched, no temporary. */
ST_TEST(baseline_file_size_limit_is_a_clear_error)
{
  char dir[] = "/tmp/perfgate-fsize-XXXXXX", path[600];
  char *old = old_file_in(dir, path, sizeof path, 3), *out;
  int code = update_with(dir, (spawn_opts){.fsize = (long)strlen(old) / 2}, &out);
  ST_CHECKF(code == 2 && strstr(out, "baselines not written") && strstr(out, "File too large"),
            "exit %d: %s", code, out);
  printf("    RLIMIT_FSIZE %zu bytes: exit %d: %.*s\n", strlen(old) / 2, code,
         (int)strcspn(strstr(out, "baselines not written") ? strstr(out, "baselines not written") : out, "\n"),
         strstr(out, "baselines not written") ? strstr(out, "baselines not written") : out);
  ST_EQ(classify(path, old, 3, 1), 0); /* untouched */
  ST_EQ(st_temp_files(dir), 0);
  free(out);
  free(old);
  st_rmtree(dir);
}

/* Fills the file system holding dir with a ballast file. */
static void fill_up(const char *dir)
{
  char ballast[700], block[4096];
  memset(block, 'x', sizeof block);
  snprintf(ballast, sizeof ballast, "%s/ballast", dir);
  int fd = open(ballast, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  while (fd >= 0 && write(fd, block, sizeof block) > 0) {
  }
  ST_CHECK(fd >= 0 && errno == ENOSPC);
  if (fd >= 0) close(fd);
}

/* A full file system (a 1 MiB tmpfs in this test's own mount namespace):
 * exit 2 with ENOSPC named, the old file untouched, no temporary. */
ST_TEST(baseline_full_disk_is_a_clear_error)
{
  char top[] = "/tmp/perfgate-full-XXXXXX", dir[600], path[700];
  ST_CHECK(mkdtemp(top) != NULL);
  snprintf(dir, sizeof dir, "%s/mnt", top);
  ST_CHECK(mkdir(dir, 0755) == 0);
  /* type and source are ignored for a propagation change; named, not NULL */
  if (unshare(CLONE_NEWNS) || mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) ||
      mount("perfgate-full", dir, "tmpfs", 0, "size=1m")) {
    st_skip("cannot mount a small tmpfs here (%s); RLIMIT_FSIZE stands in for a full disk",
            strerror(errno));
    st_rmtree(top);
    return;
  }
  st_host_baseline_file(dir, path, sizeof path);
  write_old(path, 3);
  char *old = st_slurp(path), *out;
  fill_up(dir);
  int code = update_with(dir, (spawn_opts){0}, &out);
  ST_CHECKF(code == 2 && strstr(out, "baselines not written") &&
                strstr(out, "No space left on device"),
            "exit %d: %s", code, out);
  const char *msg = strstr(out, "baselines not written") ? strstr(out, "baselines not written") : out;
  printf("    full tmpfs: exit %d: %.*s\n", code, (int)strcspn(msg, "\n"), msg);
  ST_EQ(classify(path, old, 3, 1), 0); /* untouched */
  ST_EQ(st_temp_files(dir), 0);
  umount(dir);
  free(out);
  free(old);
  st_rmtree(top);
}

/* Two updaters of the same file at once, each measuring a different test:
 * both succeed and the file keeps both tests' entries (the second to write
 * reads the first one's file under the lock). */
ST_TEST(baseline_two_updaters_at_once_lose_nothing)
{
  char dir[] = "/tmp/perfgate-race-XXXXXX", path[600], dirarg[700];
  char *old = old_file_in(dir, path, sizeof path, OLD_ENTRIES);
  snprintf(dirarg, sizeof dirarg, "--baseline-dir=%s", dir);
  const char *a[] = {"--update-baselines", "--accept-wide", "--filter=bl.host_work", dirarg, NULL};
  const char *b[] = {"--update-baselines", "--accept-wide", "--filter=bl.ratio_claim", dirarg, NULL};
  int waited = 0, good = 0;
  for (int i = 0; i < RACES; i++) {
    restore(path, old);
    char log[700];
    snprintf(log, sizeof log, "%s.log", dir);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    pid_t pa = spawn(a, (spawn_opts){.out_fd = fd}), pb = spawn(b, (spawn_opts){.out_fd = fd});
    int ca = wait_code(pa), cb = wait_code(pb);
    close(fd);
    char *out = st_slurp(log);
    waited += out && strstr(out, "another update holds") != NULL;
    perf__baseline now_bl;
    char err[400] = "";
    int ok = perf__blyaml_load(path, &now_bl, err, sizeof err) == 0 &&
             now_bl.nentries == OLD_ENTRIES + 4 && now_bl.nratios == 2 &&
             perf__baseline_find(&now_bl, "bl.host_work", "w") &&
             perf__baseline_find(&now_bl, "bl.ratio_claim", "a") &&
             perf__baseline_find(&now_bl, "old.t00000", "w");
    ST_CHECKF(ca == 0 && cb == 0 && ok, "round %d: exits %d %d, %zu entries %zu ratios (want %d, 2): %s",
              i, ca, cb, now_bl.nentries, now_bl.nratios, OLD_ENTRIES + 4, err);
    good += ca == 0 && cb == 0 && ok;
    perf__baseline_free(&now_bl);
    free(out);
    unlink(log);
  }
  printf("    two updaters x%d: %d kept both tests' entries; %d had one wait for the other\n",
         RACES, good, waited);
  free(old);
  st_rmtree(dir);
}

/* Takes the updaters' lock on dir's lock file; returns its descriptor. */
static int hold_lock(const char *dir)
{
  char lock[700];
  snprintf(lock, sizeof lock, "%s/%s", dir, PERF__BASELINEDIR_LOCK_FILE);
  int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ST_CHECK(fd >= 0 && flock(fd, LOCK_EX) == 0);
  return fd;
}

/* Waits until the file at log holds n copies of text: up to 180 s, time
 * for two updaters to measure on a loaded machine before they wait. */
static int wait_for(const char *log, const char *text, int n)
{
  for (int i = 0; i < 1800; i++) {
    char *out = st_slurp(log);
    int k = out ? st_count(out, text) : 0;
    free(out);
    if (k >= n) return 1;
    usleep(100000);
  }
  return 0;
}

/* Two updaters made to collide: the test holds the lock until both have
 * measured and wait for it, then lets go. Both must say they wait, both
 * must succeed, and the file must keep both tests' entries: the second to
 * write reads the first one's file under the lock. (Before the lock
 * covered the load, 7 of 10 free-running rounds lost one test's entries.) */
ST_TEST(baseline_two_updaters_forced_to_collide_lose_nothing)
{
  char dir[] = "/tmp/perfgate-held-XXXXXX", path[600], dirarg[700], log[700];
  char *old = old_file_in(dir, path, sizeof path, OLD_ENTRIES);
  snprintf(dirarg, sizeof dirarg, "--baseline-dir=%s", dir);
  snprintf(log, sizeof log, "%s.log", dir);
  const char *a[] = {"--update-baselines", "--accept-wide", "--filter=bl.host_work", dirarg, NULL};
  const char *b[] = {"--update-baselines", "--accept-wide", "--filter=bl.ratio_claim", dirarg, NULL};
  int good = 0;
  for (int i = 0; i < HELD_RACES; i++) {
    restore(path, old);
    int lock = hold_lock(dir);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    pid_t pa = spawn(a, (spawn_opts){.out_fd = fd}), pb = spawn(b, (spawn_opts){.out_fd = fd});
    close(fd);
    int waited = ST_CHECKF(wait_for(log, "another update holds", 2), "round %d: both did not wait", i);
    close(lock);
    int ca = wait_code(pa), cb = wait_code(pb);
    perf__baseline now_bl;
    char err[400] = "";
    int ok = perf__blyaml_load(path, &now_bl, err, sizeof err) == 0 &&
             now_bl.nentries == OLD_ENTRIES + 4 && now_bl.nratios == 2 &&
             perf__baseline_find(&now_bl, "bl.host_work", "w") &&
             perf__baseline_find(&now_bl, "bl.ratio_claim", "a");
    ST_CHECKF(ca == 0 && cb == 0 && ok, "round %d: exits %d %d, %zu entries %zu ratios %s", i,
              ca, cb, now_bl.nentries, now_bl.nratios, err);
    good += waited && ca == 0 && cb == 0 && ok;
    perf__baseline_free(&now_bl);
  }
  printf("    two updaters held at the lock x%d: in %d both waited, both wrote, both kept\n",
         HELD_RACES, good);
  unlink(log);
  free(old);
  st_rmtree(dir);
}

/* --check-baselines validates a directory without running a test (no GPU
 * needed): the shipped baselines/ passes, a malformed file is exit 2 with
 * file:line:column, a missing directory is exit 2 naming it. */
ST_TEST(check_baselines_validates_the_directory)
{
  st_run r;
  st_exec(&r, "", "--check-baselines --baseline-dir=baselines");
  ST_EQ(r.status, 0);
  ST_CHECKF(strstr(r.out, "baselines/nvidia-h100-80gb-hbm3.yaml:") &&
                strstr(r.out, "in baselines, all valid"), "%s", r.out);
  ST_CHECK(strstr(r.out, "passed,") == NULL); /* no test ran */
  st_run_free(&r);

  char dir[] = "/tmp/perfgate-check-XXXXXX", args[200], path[300];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/a-good.yaml", dir);
  FILE *f = fopen(path, "w");
  if (f) fputs("schema: 1\nfingerprint:\n  name: x\nentries: []\nratios: []\n", f), fclose(f);
  snprintf(path, sizeof path, "%s/b-bad.yaml", dir);
  f = fopen(path, "w");
  if (f) fputs("schema: 1\nfingerprint:\n  name: x\nentries: 7\nratios: []\n", f), fclose(f);
  snprintf(args, sizeof args, "--check-baselines --baseline-dir=%s", dir);
  st_exec(&r, "", args);
  ST_EQ(r.status, 2);
  ST_CHECKF(strstr(r.out, "a-good.yaml: 0 entries") && strstr(r.out, "b-bad.yaml:4:") &&
                !strstr(r.out, "all valid"), "%s", r.out);
  st_run_free(&r);
  st_rmtree(dir);

  st_exec(&r, "", "--check-baselines --baseline-dir=/nonexistent-perfgate-dir");
  ST_EQ(r.status, 2);
  ST_CHECKF(strstr(r.out, "cannot read the directory '/nonexistent-perfgate-dir'"), "%s", r.out);
  st_run_free(&r);
}

/* Writes text to dir/name. */
static void put_file(const char *dir, const char *name, const char *text)
{
  char path[700];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  ST_CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
}

/* A file named like a baseline file that no run reads (x.yml, x.YAML) is
 * named, with the name a run would read, and --check-baselines exits 2
 * (it passed over them and said "0 baseline files ... all valid"); so does
 * --update-baselines, before it runs anything. README.md and an updater's
 * temporaries pass; without the misnamed files the directory is valid. */
ST_TEST(check_baselines_names_files_no_run_reads)
{
  char dir[] = "/tmp/perfgate-yml-XXXXXX", args[200];
  st_run r;
  ST_CHECK(mkdtemp(dir) != NULL);
  const char *valid = "schema: 1\nfingerprint:\n  name: x\nentries: []\nratios: []\n";
  put_file(dir, "a.yml", valid);
  put_file(dir, "b.YAML", valid);
  put_file(dir, "README.md", "# notes\n");
  put_file(dir, "c.yaml.tmp.123", "half");
  snprintf(args, sizeof args, "--check-baselines --baseline-dir=%s", dir);
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 2 && strstr(r.out, "/a.yml: not read by a run, which reads only files "
                                           "named '.yaml': rename it to a.yaml, or remove it") &&
                strstr(r.out, "/b.YAML: not read by a run") && strstr(r.out, "rename it to b.yaml") &&
                !strstr(r.out, "README") && !strstr(r.out, "tmp.123") && !strstr(r.out, "all valid"),
            "%d: %s", r.status, r.out);
  st_run_free(&r);
  snprintf(args, sizeof args, "--update-baselines --filter=host.truth --baseline-dir=%s", dir);
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 2 && strstr(r.out, "/a.yml: not read by a run") &&
                strstr(r.out, "nothing was run") && !strstr(r.out, "passed,"), "%d: %s", r.status,
            r.out);
  st_run_free(&r);
  char path[700], to[700];
  snprintf(path, sizeof path, "%s/a.yml", dir);
  snprintf(to, sizeof to, "%s/a.yaml", dir);
  ST_EQ(rename(path, to), 0);
  snprintf(path, sizeof path, "%s/b.YAML", dir);
  ST_EQ(unlink(path), 0);
  snprintf(args, sizeof args, "--check-baselines --baseline-dir=%s", dir);
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 0 && strstr(r.out, "1 baseline file in ") && strstr(r.out, "all valid"),
            "%d: %s", r.status, r.out);
  st_run_free(&r);
  st_rmtree(dir);
}
