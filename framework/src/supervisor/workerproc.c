/* workerproc.c — a worker process: started on its pipes, stopped, reaped, its output drained. */
#define _GNU_SOURCE
#include "supervisor/workerproc.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/cpumask.h"
#include "util/progname.h"
#include "util/status.h"



void perf__workerproc_close_fd(int *fd)
{
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

/* The path to exec: this very binary. */
static const char *self_path(const char *argv0)
{
  static char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return argv0;
  buf[n] = '\0';
  return buf;
}

/* In the child: wire the pipes, give it the run's CPUs (cpus, unless
 * NULL: an OpenMP runtime may have bound this process to one CPU before
 * main(), and the worker would inherit that) and exec the worker; never
 * returns. */
static void exec_worker(pid_t parent, const cpu_set_t *cpus, int cmd_r, int res_w, int out_w,
                        int argc, char **argv)
{
  char fds[64];
  char **args = calloc((size_t)argc + 2, sizeof *args);
  if (!args) _exit(127);
  setpgid(0, 0);
  if (cpus) sched_setaffinity(0, sizeof *cpus, cpus); /* else: the inherited mask */
  /* A worker never outlives its supervisor (Ctrl-C, CI cancel, crash): it
   * would hold the GPU with nobody reading its results. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  dup2(out_w, STDOUT_FILENO);
  dup2(out_w, STDERR_FILENO);
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  fcntl(cmd_r, F_SETFD, 0);
  fcntl(res_w, F_SETFD, 0);
  snprintf(fds, sizeof fds, "--perf-worker=%d,%d", cmd_r, res_w);
  args[0] = argv[0];
  args[1] = fds;
  for (int i = 1; i < argc; i++) args[i + 1] = argv[i];
  execv(self_path(argv[0]), args);
  fprintf(stderr, "%s: cannot exec worker: %s\n", perf__progname(), strerror(errno));
  _exit(127);
}

/* Starts a worker. Returns 0, or PERF__EIO with errno set. */
int perf__workerproc_start(perf__workerproc *w, int argc, char **argv)
{
  int cmd[2], res[2], out[2];
  if (pipe2(cmd, O_CLOEXEC)) return PERF__EIO;
  if (pipe2(res, O_CLOEXEC)) goto close_cmd;
  if (pipe2(out, O_CLOEXEC)) goto close_res;
  cpu_set_t cpus;
  int known = perf__cpumask_get(&cpus) == 0;
  fflush(NULL);
  pid_t parent = getpid(), pid = fork();
  if (pid < 0) goto close_out;
  if (pid == 0) exec_worker(parent, known ? &cpus : NULL, cmd[0], res[1], out[1], argc, argv);
  close(cmd[0]);
  close(res[1]);
  close(out[1]);
  *w = (perf__workerproc){.pid = pid, .cmd = cmd[1], .res = res[0], .out = out[0]};
  fcntl(w->out, F_SETFL, O_NONBLOCK);
  return 0;
close_out:
  close(out[0]);
  close(out[1]);
close_res:
  close(res[0]);
  close(res[1]);
close_cmd:
  close(cmd[0]);
  close(cmd[1]);
  return PERF__EIO;
}

/* Polls for the worker's exit for up to ms; 1 when reaped (*status set). */
static int wait_exit(pid_t pid, int ms, int *status)
{
  for (int waited = 0;; waited += 10) {
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) return 1;
    if (waited >= ms) return 0;
    usleep(10000);
  }
}

/* Waits up to ms for the worker to exit, then kills its process group. A
 * worker stuck in the driver may not die at once: after 10 s more it is
 * left behind (reported), so that the run goes on. Returns the wait status
 * (0 when it could not be reaped). */
int perf__workerproc_reap(perf__workerproc *w, int ms)
{
  int status = 0;
  if (!wait_exit(w->pid, ms, &status)) {
    kill(-w->pid, SIGKILL);
    kill(w->pid, SIGKILL);
    if (!wait_exit(w->pid, 10000, &status))
      fprintf(stderr, "%s: worker %ld did not die after SIGKILL; "
                      "going on without it\n", perf__progname(), (long)w->pid);
  }
  kill(-w->pid, SIGKILL); /* children the test may have left behind */
  return status;
}

/* Stops a worker: end of file on its commands lets it exit on its own. */
void perf__workerproc_stop(perf__workerproc *w, int kill_now)
{
  if (w->pid <= 0) return;
  perf__workerproc_close_fd(&w->cmd);
  if (kill_now) kill(-w->pid, SIGKILL);
  perf__workerproc_reap(w, kill_now ? 0 : 2000);
  perf__workerproc_close_fd(&w->res);
  perf__workerproc_close_fd(&w->out);
  perf__wire_buf_free(&w->rb);
  w->pid = 0;
}

/* Moves whatever the test wrote so far into r. */
void perf__workerproc_drain(perf__workerproc *w, perf__result *r)
{
  char buf[4096];
  for (;;) {
    ssize_t n = read(w->out, buf, sizeof buf);
    if (n > 0)
      perf__result_add_output(r, buf, (size_t)n);
    else if (!(n < 0 && errno == EINTR))
      break;
  }
}

/* The cause of a worker's death, from its wait status. */
void perf__workerproc_death(int status, perf__result *r)
{
  r->outcome = PERF_OUTCOME_FAIL;
  if (WIFSIGNALED(status))
    snprintf(r->reason, sizeof r->reason, "crashed: signal %d (%s)",
             WTERMSIG(status), strsignal(WTERMSIG(status)));
  else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    snprintf(r->reason, sizeof r->reason,
             "the worker could not start (exit status 127)");
  else if (WIFEXITED(status))
    snprintf(r->reason, sizeof r->reason,
             "the test ended the process: exit status %d before it finished",
             WEXITSTATUS(status));
  else
    snprintf(r->reason, sizeof r->reason, "worker vanished (status 0x%x)",
             status);
}

