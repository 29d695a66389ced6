/* files.c — the files perfgate writes and reads, on a device node, a FIFO and a symlink. */
/* What each path is afterwards, and the exit code. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "selftest.h"

/* The kind of what path names, not following a last symlink: 'f' file,
 * 'l' link, 'c' character device, 'p' FIFO, 'd' directory, '-' nothing. */
static char kind(const char *path)
{
  struct stat st;
  if (lstat(path, &st)) return '-';
  return S_ISLNK(st.st_mode)   ? 'l'
         : S_ISCHR(st.st_mode) ? 'c'
         : S_ISFIFO(st.st_mode) ? 'p'
         : S_ISDIR(st.st_mode) ? 'd'
         : S_ISREG(st.st_mode) ? 'f'
                               : '?';
}

/* A fresh temporary directory in dir[len]; 0 or -1. */
static int tmpdir(char *dir, size_t len)
{
  snprintf(dir, len, "/tmp/perfgate-files-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

/* Runs the fixture with the arguments fmt makes; checks that it exits 0. */
static void fixture_ok(const char *fmt, const char *dir)
{
  char args[1600];
  st_run r;
  snprintf(args, sizeof args, fmt, dir);
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 0, "%s: %d: %s", args, r.status, r.out);
  st_run_free(&r);
}

/* Every report flag, written to a device node, a FIFO or a symlink made in
 * a temporary directory (never the machine's own /dev): a device and a FIFO
 * are written in place and stay what they were; a full device (1:7, as
 * /dev/full) and a FIFO nobody reads are exit 2 with the reason; a symlink
 * stays and its target gets the report; a link to nothing is refused. */
ST_TEST(files_reports_on_devices_fifos_and_symlinks)
{
  static const char *const flags[] = {"--markdown", "--json", "--junit", "--html"};
  char dir[64], args[1600], p[600];
  st_run r;
  ST_EQ(tmpdir(dir, sizeof dir), 0);
  int root = geteuid() == 0;
  for (int k = 0; k < 4; k++) {
    const char *flag = flags[k];
    if (root) { /* device nodes need CAP_MKNOD */
      snprintf(p, sizeof p, "%s/full", dir);
      ST_EQ(mknod(p, S_IFCHR | 0666, makedev(1, 7)), 0);
      snprintf(args, sizeof args, "--filter=host.truth %s=%s", flag, p);
      st_exec(&r, "", args);
      ST_CHECKF(r.status == 2 && strstr(r.out, "No space left on device") && kind(p) == 'c',
                "%s=full: %d, now '%c': %s", flag, r.status, kind(p), r.out);
      st_run_free(&r);
      unlink(p);
      snprintf(p, sizeof p, "%s/null", dir);
      ST_EQ(mknod(p, S_IFCHR | 0666, makedev(1, 3)), 0);
      snprintf(args, sizeof args, "--filter=host.truth %s=%s", flag, p);
      st_exec(&r, "", args);
      ST_CHECKF(r.status == 0 && kind(p) == 'c', "%s=null: %d, now '%c': %s", flag, r.status,
                kind(p), r.out);
      st_run_free(&r);
      unlink(p);
    }
    /* a FIFO nobody reads: refused at once, not waited on */
    snprintf(p, sizeof p, "%s/fifo", dir);
    ST_EQ(mkfifo(p, 0600), 0);
    snprintf(args, sizeof args, "--filter=host.truth %s=%s", flag, p);
    st_exec(&r, "", args);
    ST_CHECKF(r.status == 2 && strstr(r.out, "a FIFO that no process is reading") && kind(p) == 'p',
              "%s=fifo: %d, now '%c': %s", flag, r.status, kind(p), r.out);
    st_run_free(&r);
    /* a FIFO with a reader gets the report. The shell opens the FIFO for
     * writing before the fixture starts, which waits until cat has opened
     * it to read: however late cat starts, a reader exists; closing the
     * shell's end afterwards gives cat its end of file. */
    snprintf(args, sizeof args, "--filter=host.truth %s=%s/fifo 3>&-; rc=$?; exec 3>&-; wait $c; "
             "echo rc=$rc", flag, dir);
    char env[600];
    snprintf(env, sizeof env, "cat %s/fifo > %s/read & c=$!; exec 3>%s/fifo; ", dir, dir, dir);
    st_exec(&r, env, args);
    snprintf(p, sizeof p, "%s/read", dir);
    char *got = st_slurp(p);
    ST_CHECKF(strstr(r.out, "rc=0") && got && strstr(got, "truth"), "%s=fifo, read: %s / %s",
              flag, r.out, got ? got : "(none)");
    free(got);
    st_run_free(&r);
    snprintf(p, sizeof p, "%s/fifo", dir);
    ST_CHECK(kind(p) == 'p');
    unlink(p);
    /* a symlink stays; its target gets the report */
    snprintf(p, sizeof p, "%s/target", dir);
    FILE *f = fopen(p, "w");
    ST_CHECK(f && fputs("old\n", f) >= 0 && fclose(f) == 0);
    snprintf(p, sizeof p, "%s/link", dir);
    ST_EQ(symlink("target", p), 0);
    snprintf(args, sizeof args, "--filter=host.truth %s=%s", flag, p);
    st_exec(&r, "", args);
    snprintf(p, sizeof p, "%s/target", dir);
    got = st_slurp(p);
    snprintf(p, sizeof p, "%s/link", dir);
    ST_CHECKF(r.status == 0 && kind(p) == 'l' && got && strstr(got, "truth") &&
                  strncmp(got, "old\n", 4) != 0 && st_temp_files(dir) == 0,
              "%s=link: %d, now '%c': %s", flag, r.status, kind(p), r.out);
    free(got);
    st_run_free(&r);
    unlink(p);
    /* a link to nothing: refused, left as it is */
    ST_EQ(symlink("missing", p), 0);
    st_exec(&r, "", args);
    ST_CHECKF(r.status == 2 && strstr(r.out, "it is a symbolic link to 'missing', which does not exist") &&
                  kind(p) == 'l',
              "%s=dangling: %d: %s", flag, r.status, r.out);
    st_run_free(&r);
    unlink(p);
    snprintf(p, sizeof p, "%s/target", dir);
    unlink(p);
  }
  /* not root: the device nodes were not tried (mknod needs CAP_MKNOD) */
  st_rmtree(dir);
}

/* A report to this process's own stdout (/proc/self/fd/1, as /dev/stdout
 * resolves) lands in the stream, in order, after what stdout held. */
ST_TEST(files_report_to_own_stdout_is_written_in_place)
{
  char dir[64], args[1600], p[600];
  ST_EQ(tmpdir(dir, sizeof dir), 0);
  snprintf(p, sizeof p, "%s/out", dir);
  snprintf(args, sizeof args, "--filter=host.truth --json=/proc/self/fd/1 > %s; echo rc=$?", p);
  st_run r;
  st_exec(&r, "", args);
  char *got = st_slurp(p);
  const char *json = got ? strstr(got, "{\"schema\": \"perfgate-report/1\"") : NULL;
  const char *pass = got ? strstr(got, "PASS  host.truth") : NULL;
  ST_CHECKF(strstr(r.out, "rc=0") && json && pass && pass < json &&
                strstr(json, "1 passed, 0 failed, 0 skipped"),
            "%s / %s", r.out, got ? got : "(none)");
  free(got);
  st_run_free(&r);
  st_rmtree(dir);
}

/* stdin is open only for reading: a report to the file it reads (/dev/null
 * under cron, nohup or a CI runner; a file fed to stdin) is written as any
 * other, never through descriptor 0 (that failed after the whole run with
 * "Invalid argument", exit 2). */
ST_TEST(files_report_to_the_file_stdin_reads)
{
  char dir[64], args[1600], p[600];
  ST_EQ(tmpdir(dir, sizeof dir), 0);
  st_run r;
  st_exec(&r, "", "--filter=host.truth --json=/dev/null --junit=/dev/stdout < /dev/null");
  ST_CHECKF(r.status == 0 && !strstr(r.out, "cannot write") && strstr(r.out, "<testsuites"),
            "%d: %s", r.status, r.out);
  st_run_free(&r);
  snprintf(p, sizeof p, "%s/o.txt", dir);
  FILE *f = fopen(p, "w");
  ST_CHECK(f && fputs("old\n", f) >= 0 && fclose(f) == 0);
  snprintf(args, sizeof args, "--filter=host.truth --json=%s < %s", p, p);
  st_exec(&r, "", args);
  char *got = st_slurp(p);
  ST_CHECKF(r.status == 0 && got && strstr(got, "\"schema\": \"perfgate-report/1\"") &&
                strncmp(got, "old\n", 4) != 0 && st_temp_files(dir) == 0,
            "%d: %s / %s", r.status, r.out, got ? got : "(none)");
  free(got);
  st_run_free(&r);
  st_rmtree(dir);
}

/* The check before the run opens a device as the writer does: /dev/tty in
 * a session with no terminal (setsid) is exit 2 before any test runs
 * ("No such device or address"), not after every test ran, as when the
 * check asked only access(2). */
ST_TEST(files_device_check_opens_it_as_the_writer_does)
{
  struct stat st;
  if (stat("/dev/tty", &st) || !S_ISCHR(st.st_mode) ||
      st_shell("command -v setsid > /dev/null") != 0) {
    st_skip("no /dev/tty device or no setsid(1) here");
    return;
  }
  st_run r;
  st_exec(&r, "setsid -w ", "--filter=host.truth --json=/dev/tty");
  ST_CHECKF(r.status == 2 && strstr(r.out, "--json=/dev/tty: No such device or address") &&
                !strstr(r.out, "host.truth") && !strstr(r.out, "passed,"),
            "%d: %s", r.status, r.out);
  st_run_free(&r);
}

/* --update-baselines: a baseline file that is a symlink stays one (its
 * target is replaced); a baseline directory that does not exist yet is
 * created, with its parents; the first notice names the flag. */
ST_TEST(files_baselines_symlink_new_directory_and_first_notice)
{
  char dir[64], args[1600], p[600], file[600];
  st_run r;
  ST_EQ(tmpdir(dir, sizeof dir), 0);
  snprintf(args, sizeof args, "--filter=bl.host_work --baseline-dir=%s/new/sub", dir);
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 0 && strstr(r.out, "Create it by running this binary with "
                                           "--update-baselines"),
            "%d: %s", r.status, r.out);
  st_run_free(&r);
  snprintf(args, sizeof args, "--filter=bl.host_work --baseline-dir=%s/new/sub --update-baselines --accept-wide",
           dir);
  st_exec(&r, "", args);
  snprintf(p, sizeof p, "%s/new/sub", dir);
  st_host_baseline_file(p, file, sizeof file);
  ST_CHECKF(r.status == 0 && kind(file) == 'f', "%d, %s is '%c': %s", r.status, file, kind(file),
            r.out);
  st_run_free(&r);
  /* now make the file a link to a file elsewhere, and update again */
  snprintf(p, sizeof p, "%s/real.yaml", dir);
  ST_EQ(rename(file, p), 0);
  ST_EQ(symlink(p, file), 0);
  st_exec(&r, "", args);
  char *got = st_slurp(p);
  ST_CHECKF(r.status == 0 && kind(file) == 'l' && got && strstr(got, "workload:"),
            "%d, link now '%c': %s", r.status, kind(file), r.out);
  free(got);
  st_run_free(&r);
  st_rmtree(dir);
}

/* --strict-baselines with a baseline file that lacks the run's entries:
 * exit 2, and a line that says why. */
ST_TEST(files_strict_baselines_exit_2_says_why)
{
  char dir[64], args[1600], file[600];
  st_run r;
  ST_EQ(tmpdir(dir, sizeof dir), 0);
  fixture_ok("--filter=bl.host_work --baseline-dir=%s --update-baselines --accept-wide", dir);
  /* the file holds bl.host_work's entry, not bl.ratio_claim's workloads */
  snprintf(args, sizeof args, "--filter=bl.ratio_claim --baseline-dir=%s --baseline-check=all "
           "--strict-baselines", dir);
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 2 && strstr(r.out, "exit 2: --strict-baselines: 1 test measured workloads "
                                           "with no entry") &&
                strstr(r.out, "bl.ratio_claim"),
            "%d: %s", r.status, r.out);
  st_run_free(&r);
  st_host_baseline_file(dir, file, sizeof file);
  ST_CHECK(kind(file) == 'f');
  st_rmtree(dir);
}

/* A baseline path that is a FIFO or a directory is refused at once with
 * the reason (a FIFO used to hang until --timeout); a file of exactly
 * 16 MiB is read, one byte more is refused. */
ST_TEST(files_baseline_reading_edge_cases)
{
  char dir[64], args[1600], p[600];
  st_run r;
  ST_EQ(tmpdir(dir, sizeof dir), 0);
  snprintf(p, sizeof p, "%s/a.yaml", dir);
  ST_EQ(mkfifo(p, 0600), 0);
  snprintf(args, sizeof args, "--check-baselines --baseline-dir=%s", dir);
  st_exec(&r, "timeout 20 ", args);
  ST_CHECKF(r.status == 2 && strstr(r.out, "a.yaml: is not a regular file (a FIFO"), "%d: %s",
            r.status, r.out);
  st_run_free(&r);
  unlink(p);
  ST_EQ(mkdir(p, 0700), 0);
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 2 && strstr(r.out, "a.yaml: is a directory"), "%d: %s", r.status, r.out);
  st_run_free(&r);
  rmdir(p);
  /* 16 MiB of comment: read (and then empty), not "larger than 16 MiB" */
  char cmd[800];
  snprintf(cmd, sizeof cmd, "head -c 16777216 /dev/zero | tr '\\000' '#' > %s", p);
  ST_EQ(st_shell(cmd), 0);
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 2 && strstr(r.out, "the file is empty") && !strstr(r.out, "larger"),
            "%d: %s", r.status, r.out);
  st_run_free(&r);
  snprintf(cmd, sizeof cmd, "printf '#' >> %s", p);
  ST_EQ(st_shell(cmd), 0);
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 2 && strstr(r.out, "a.yaml: is larger than 16 MiB"), "%d: %s", r.status,
            r.out);
  st_run_free(&r);
  st_rmtree(dir);
}

/* JUnit and HTML reports of a failing test whose output passed the 64 KiB
 * cap: its output is shown up to its last whole line, then the marker. */
ST_TEST(files_reports_mark_cut_output_and_html_shows_it)
{
  char dir[64], args[1600], p[600];
  st_run r;
  ST_EQ(tmpdir(dir, sizeof dir), 0);
  snprintf(args, sizeof args, "--filter='files.*' --junit=%s/r.xml --html=%s/r.html", dir, dir);
  st_exec(&r, "", args);
  ST_EQ(r.status, 1);
  /* the console, too, ends the output at a whole line before the marker */
  ST_CHECKF(strstr(r.out, "abcdefghij\n      | [output truncated at 64 KiB]\n") != NULL, "%s",
            r.out);
  st_run_free(&r);
  for (int k = 0; k < 2; k++) {
    snprintf(p, sizeof p, "%s/%s", dir, k ? "r.html" : "r.xml");
    char *got = st_slurp(p);
    const char *cut = got ? strstr(got, "[output truncated at 64 KiB]") : NULL;
    ST_CHECKF(got && strstr(got, "flood line 0000:") && cut && !strncmp(cut - 11, "abcdefghij\n", 11),
              "%s: %s", p, got ? "marker missing or after a cut line" : "unreadable");
    free(got);
  }
  st_rmtree(dir);
}

/* --merge refuses a report with an outcome perfgate does not write. */
ST_TEST(files_merge_refuses_an_unknown_outcome)
{
  char dir[64], args[1600], p[600];
  st_run r;
  ST_EQ(tmpdir(dir, sizeof dir), 0);
  fixture_ok("--filter=host.truth --json=%s/a.json", dir);
  char cmd[1600];
  snprintf(cmd, sizeof cmd, "sed 's/\"outcome\": \"PASS\"/\"outcome\": \"GREAT\"/' %s/a.json > %s/b.json",
           dir, dir);
  ST_EQ(st_shell(cmd), 0);
  snprintf(args, sizeof args, "--merge=%s/m.json %s/b.json", dir, dir);
  st_exec(&r, "", args);
  snprintf(p, sizeof p, "%s/m.json", dir);
  ST_CHECKF(r.status == 2 && strstr(r.out, "test host.truth has the unknown outcome 'GREAT'") &&
                kind(p) == '-',
            "%d: %s", r.status, r.out);
  st_run_free(&r);
  st_rmtree(dir);
}

/* Progress lines rewrite the terminal's line; TERM=dumb gets none. */
ST_TEST(files_term_dumb_gets_no_progress_lines)
{
  if (st_shell("command -v script >/dev/null") != 0) {
    st_skip("script(1) not found: no terminal to run under");
    return;
  }
  char cmd[1600], dir[64], p[600];
  ST_EQ(tmpdir(dir, sizeof dir), 0);
  for (int dumb = 0; dumb < 2; dumb++) {
    snprintf(p, sizeof p, "%s/tty%d", dir, dumb);
    snprintf(cmd, sizeof cmd, "TERM=%s script -qec \"'%s' --filter=host.truth\" /dev/null > %s",
             dumb ? "dumb" : "xterm", st_fixture, p);
    ST_EQ(st_shell(cmd), 0);
    char *got = st_slurp(p);
    int progress = got && strstr(got, "[1/1] host.truth");
    ST_CHECKF(got && strstr(got, "host.truth") && progress == !dumb, "TERM=%s: %s",
              dumb ? "dumb" : "xterm", got ? got : "(none)");
    free(got);
  }
  st_rmtree(dir);
}

/* --devices names only devices this machine has: with a GPU, a listed
 * device past the last is exit 2 with the count; with none, or under
 * CUDA_VISIBLE_DEVICES (whose ids the count does not see), the tests run
 * and say for themselves what they lack (a CPU-only CI machine). */
ST_TEST(files_devices_are_checked_against_the_machine)
{
  st_run r;
  st_exec(&r, "", "--filter=host.truth --devices=0,1023");
  if (st_have_gpu() && !getenv("CUDA_VISIBLE_DEVICES"))
    ST_CHECKF(r.status == 2 && strstr(r.out, "--devices: device 1023 does not exist: this "
                                             "machine has "),
              "%d: %s", r.status, r.out);
  else
    ST_CHECKF(r.status == 0 && strstr(r.out, "host.truth"), "%d: %s", r.status, r.out);
  st_run_free(&r);
}

/* --devices=all where no GPU is usable (none here, or CUDA_VISIBLE_DEVICES=-1
 * hides them): the tests run once, as without --devices, after a line that
 * says why none was found (the driver's state and CUDA's error); reports at
 * the names given; a skip for want of a GPU fails only with --require-gpu.
 * It was exit 2, "no CUDA device found", nothing run. */
ST_TEST(files_devices_all_without_a_gpu_runs_and_skips)
{
  char dir[64], args[1600], p[600];
  ST_EQ(tmpdir(dir, sizeof dir), 0);
  for (int require = 0; require < 2; require++) {
    snprintf(args, sizeof args, "--filter='host.truth:cuda.no_driver_skips_the_test' "
             "--devices=all --json=%s/dv.json --junit=%s/dv.xml%s", dir, dir,
             require ? " --require-gpu" : "");
    st_run r;
    st_exec(&r, "CUDA_VISIBLE_DEVICES=-1 ", args);
    const char *note = strstr(r.out, "perfgate: --devices=all: no usable CUDA device (");
    const char *banner = strstr(r.out, "perfgate: 2 tests");
    ST_CHECKF(r.status == (require ? 2 : 0) && note && banner && note < banner &&
                  strstr(note, "cudaGetDeviceCount: ") &&
                  strstr(note, "(CUDA_VISIBLE_DEVICES=-1)") && strstr(r.out, "PASS  host.truth") &&
                  strstr(r.out, "SKIP  cuda.no_driver_skips_the_test") &&
                  !strstr(r.out, "[gpu "),
              "--require-gpu %d: %d: %s", require, r.status, r.out);
    /* no driver at all: the note says so, as a skipped test does */
    if (access("/proc/driver/nvidia/version", F_OK))
      ST_CHECKF(note && strstr(note, "no NVIDIA driver found: "), "%s", r.out);
    snprintf(p, sizeof p, "%s/dv.json", dir);
    char *json = st_slurp(p);
    snprintf(p, sizeof p, "%s/dv.xml", dir);
    char *xml = st_slurp(p);
    snprintf(p, sizeof p, "%s/dv.gpu0.json", dir);
    ST_CHECKF(json && strstr(json, "\"name\": \"host.truth\"") && xml &&
                  strstr(xml, "name=\"truth\"") && access(p, F_OK) != 0,
              "reports: %s", r.out);
    free(json);
    free(xml);
    st_run_free(&r);
  }
  st_rmtree(dir);
}

/* The paths a reviewer tried: a link chain to our stdout and an oddly
 * spelled /proc path are written through the descriptor (stdout's file is
 * not renamed over); a link loop and a socket are refused with the reason;
 * as a user who cannot write in the node's directory, a device node is
 * still written (the up-front check looks at the node, not its directory). */
ST_TEST(files_link_chains_loops_sockets_and_unprivileged_devices)
{
  char dir[64], args[1600], p[600], q[600];
  st_run r;
  ST_EQ(tmpdir(dir, sizeof dir), 0);
  static const char *const to_stdout[] = {"b", "//proc/self/fd/1", "/dev/../proc/self/fd/1"};
  snprintf(p, sizeof p, "%s/a", dir);
  ST_EQ(symlink("/proc/self/fd/1", p), 0);
  snprintf(p, sizeof p, "%s/b", dir);
  ST_EQ(symlink("a", p), 0);
  for (int k = 0; k < 3; k++) {
    snprintf(q, sizeof q, "%s%s", k ? "" : dir, k ? to_stdout[k] : "/b");
    snprintf(p, sizeof p, "%s/out%d", dir, k);
    snprintf(args, sizeof args, "--filter=host.truth --json=%s > %s; echo rc=$?", q, p);
    st_exec(&r, "", args);
    char *got = st_slurp(p);
    ST_CHECKF(strstr(r.out, "rc=0") && got && strstr(got, "PASS  host.truth") &&
                  strstr(got, "\"schema\": \"perfgate-report/1\""),
              "--json=%s: %s / %s", q, r.out, got ? got : "(none)");
    free(got);
    st_run_free(&r);
  }
  snprintf(p, sizeof p, "%s/b", dir);
  ST_CHECK(kind(p) == 'l');
  /* a loop */
  snprintf(p, sizeof p, "%s/loop1", dir);
  ST_EQ(symlink("loop2", p), 0);
  snprintf(q, sizeof q, "%s/loop2", dir);
  ST_EQ(symlink("loop1", q), 0);
  snprintf(args, sizeof args, "--filter=host.truth --json=%s", p);
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 2 && strstr(r.out, "Too many levels of symbolic links") && kind(p) == 'l',
            "loop: %d: %s", r.status, r.out);
  st_run_free(&r);
  /* a socket */
  char cmd[1200];
  snprintf(p, sizeof p, "%s/sock", dir);
  snprintf(cmd, sizeof cmd, "python3 -c \"import socket; socket.socket(socket.AF_UNIX).bind('%s')\"", p);
  if (st_shell(cmd) == 0) {
    snprintf(args, sizeof args, "--filter=host.truth --markdown=%s", p);
    st_exec(&r, "", args);
    ST_CHECKF(r.status == 2 && strstr(r.out, "it is a socket") && kind(p) != 'f', "socket: %d: %s",
              r.status, r.out);
    st_run_free(&r);
  }
  /* An unprivileged user (as root: uid 65534, running a copy of the
   * fixture it can reach wherever the checkout lies), a device node in a
   * directory it cannot write. */
  st_nobody nb = {.dir = ""};
  char why[600];
  if (geteuid() == 0 && st_nobody_begin(&nb, why, sizeof why) == 0) {
    snprintf(p, sizeof p, "%s/null", dir);
    ST_EQ(mknod(p, S_IFCHR | 0666, makedev(1, 3)), 0);
    ST_EQ(chmod(p, 0666), 0); /* as /dev/null: the umask took some */
    ST_EQ(chmod(dir, 0755), 0);
    snprintf(args, sizeof args, "--filter=host.truth --junit=%s", p);
    st_nobody_exec(&r, &nb, args);
    ST_CHECKF(r.status == 0 && strstr(r.out, "1 passed") && kind(p) == 'c', "as uid 65534: %d: %s",
              r.status, r.out);
    st_run_free(&r);
  } else if (geteuid() == 0)
    st_skip("the rest held; the device node as an unprivileged user was not tried: %s", why);
  st_nobody_end(&nb);
  st_rmtree(dir);
}

/* Runs cmd with sh -c, its stdout a pipe whose reading end was closed
 * before it started (no reader, however the processes are scheduled). */
static void closed_pipe_shell(const char *cmd)
{
  int p[2];
  if (!ST_CHECK(pipe(p) == 0)) return;
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    dup2(p[1], 1);
    close(p[1]);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  close(p[0]);
  close(p[1]);
  int st = 0;
  while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  ST_CHECK(pid > 0);
}

/* --merge into a pipe whose reader is gone: exit 2 with the reason, not a
 * death by SIGPIPE; --devices refuses a report path it cannot make
 * per-device files from. */
ST_TEST(files_merge_into_a_closed_pipe_and_devices_with_a_stream_path)
{
  char dir[64];
  st_run r;
  ST_EQ(tmpdir(dir, sizeof dir), 0);
  fixture_ok("--filter=host.truth --json=%s/a.json", dir);
  char cmd[1600], p[600];
  snprintf(p, sizeof p, "%s/merge.txt", dir);
  snprintf(cmd, sizeof cmd, "%s '%s' --merge=/proc/self/fd/1 %s/a.json 2> %s; echo rc=$? >> %s",
           st_wrap(), st_fixture, dir, p, p);
  closed_pipe_shell(cmd);
  char *got = st_slurp(p);
  ST_CHECKF(got && strstr(got, "rc=2") && strstr(got, "Broken pipe"), "%s", got ? got : "(none)");
  free(got);
  st_exec(&r, "", "--filter=host.truth --devices=0 --junit=/proc/self/fd/1");
  ST_CHECKF(r.status == 2 && strstr(r.out, "with --devices each GPU gets its own file"), "%d: %s",
            r.status, r.out);
  st_run_free(&r);
  st_rmtree(dir);
}
