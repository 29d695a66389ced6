/* srcline.c — function and file:line of an address in this executable.
 * One addr2line server per process, its answers kept.
 *
 * Naming a call site used to start addr2line once per site: on the H100
 * host some 13 ms each, 1.4 s of a 19 s suite run that routes 104
 * workloads. addr2line started with no address on its command line reads
 * addresses from standard input and flushes each answer as it writes it,
 * so one process serves the whole run over a socket pair (a socket, not a
 * pipe: send() with MSG_NOSIGNAL cannot kill this process when addr2line
 * has died). Each answer begins with the address asked (-a), checked, so
 * an answer can never be kept under another address. Every wait for an
 * answer is bounded; a server that fails is killed and the rest of the run
 * falls back to naming addresses without it. Answers are kept by address:
 * a sweep asks for the same few sites at every point. The server is this
 * process's child: stopped and reaped at exit (a worker killed by its
 * supervisor takes it along: they share a process group). */
#define _GNU_SOURCE
#include "worker/sync/srcline.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/clock.h"

extern char **environ;

enum { SLOTS = 128, FN_LEN = 256, LOC_LEN = 1024 };
static const double WAIT_S = 20.0; /* for one answer, DWARF loading included */

typedef struct answer {
  unsigned long addr;
  int used;
  char fn[FN_LEN];
  char loc[LOC_LEN];
} answer;

static pthread_mutex_t lines_mu = PTHREAD_MUTEX_INITIALIZER;
static struct server {
  pid_t owner;  /* the process whose server this is (0: none yet) */
  pid_t pid;    /* addr2line; 0 when not running */
  int fd;       /* this end of the socket pair; -1 when not running */
  int broken;   /* failed in this process: not asked again */
  size_t have;  /* bytes read ahead into buf */
  char buf[8192];
} srv = {.fd = -1};
static answer kept[SLOTS];

/* The slot addr's answer lives in. Never fails. */
static answer *slot(unsigned long addr)
{
  return &kept[(addr * 2654435761UL >> 7) % SLOTS];
}

/* Closes this end and, in the process that started it, kills and reaps
 * the server. Never fails. */
static void stop_locked(void)
{
  if (srv.fd >= 0) close(srv.fd);
  if (srv.pid > 0 && srv.owner == getpid()) {
    kill(srv.pid, SIGKILL);
    while (waitpid(srv.pid, NULL, 0) < 0 && errno == EINTR) {
    }
  }
  srv.fd = -1;
  srv.pid = 0;
  srv.have = 0;
}

/* In a forked child: the lock may have been held by a thread that is not
 * in the child (one waiting for an answer); the child starts unlocked.
 * Never fails. */
static void after_fork(void)
{
  pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
  lines_mu = fresh;
}

/* Starts addr2line on exe with both standard streams on one socket (its
 * errors to /dev/null). Returns 0, or -1 when it cannot be started. */
static int start(const char *exe)
{
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) return -1;
  posix_spawn_file_actions_t fa;
  int e = posix_spawn_file_actions_init(&fa);
  if (!e) {
    e = posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
    if (!e) e = posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
    if (!e) e = posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    /* It lives as long as this process: it must not hold the test's pipes
     * (those without O_CLOEXEC) open. */
    if (!e) e = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
    char *argv[] = {"addr2line", "-a", "-C", "-f", "-e", (char *)exe, NULL};
    pid_t pid = 0;
    if (!e) e = posix_spawnp(&pid, "addr2line", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (!e) srv.pid = pid;
  }
  close(sv[1]);
  if (e) {
    close(sv[0]);
    return -1;
  }
  srv.fd = sv[0];
  srv.owner = getpid();
  srv.have = 0;
  static int registered; /* forked children inherit them */
  if (!registered++) {
    atexit(perf__srcline_stop);
    pthread_atfork(NULL, NULL, after_fork);
  }
  return 0;
}

/* The n bytes at from into out[len], cut to fit, NUL-terminated. */
static void copy_cut(char *out, size_t len, const char *from, size_t n)
{
  if (n >= len) n = len - 1;
  memcpy(out, from, n);
  out[n] = '\0';
}

/* The next line of the server's answer into out[len] (cut to fit: a line
 * longer than the buffer, a C++ template's name, is cut there and the rest
 * of it skipped), by the clock's deadline. Returns 0, or -1 at its end of
 * file, an error, or the deadline. */
static int next_line(char *out, size_t len, double deadline)
{
  int cut = 0; /* out holds the line's start; skipping the rest */
  for (;;) {
    char *nl = memchr(srv.buf, '\n', srv.have);
    if (nl) {
      size_t n = (size_t)(nl - srv.buf);
      if (!cut) copy_cut(out, len, srv.buf, n);
      srv.have -= n + 1;
      memmove(srv.buf, nl + 1, srv.have);
      return 0;
    }
    if (srv.have == sizeof srv.buf) {
      if (!cut) copy_cut(out, len, srv.buf, srv.have);
      cut = 1;
      srv.have = 0;
    }
    double left = deadline - perf__clock_now();
    if (left <= 0) return -1;
    struct pollfd p = {.fd = srv.fd, .events = POLLIN};
    int r = poll(&p, 1, (int)(left * 1e3) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    ssize_t got = recv(srv.fd, srv.buf + srv.have, sizeof srv.buf - srv.have, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return -1;
    srv.have += (size_t)got;
  }
}

/* Asks the server (started here when none runs in this process) for addr
 * into a. Returns 0, or -1 when it failed: then it is stopped and marked
 * broken. */
static int query(const char *exe, unsigned long addr, answer *a)
{
  if (srv.owner != getpid()) { /* none yet, or the parent's: start this process's own */
    if (srv.fd >= 0) close(srv.fd);
    srv = (struct server){.fd = -1};
  }
  if (srv.broken) return -1;
  char q[32];
  int n = snprintf(q, sizeof q, "0x%lx\n", addr);
  double deadline = perf__clock_now() + WAIT_S;
  char echo[64];
  if ((srv.fd < 0 && start(exe)) || send(srv.fd, q, (size_t)n, MSG_NOSIGNAL) != n ||
      next_line(echo, sizeof echo, deadline) || strtoul(echo, NULL, 16) != addr ||
      next_line(a->fn, sizeof a->fn, deadline) || next_line(a->loc, sizeof a->loc, deadline)) {
    stop_locked();
    srv.owner = getpid();
    srv.broken = 1;
    return -1;
  }
  a->addr = addr;
  a->used = 1;
  return 0;
}

/* See srcline.h. */
int perf__srcline_ask(const char *exe, unsigned long addr, char *fn, size_t fnlen, char *loc,
                      size_t loclen)
{
  pthread_mutex_lock(&lines_mu);
  answer *a = slot(addr), fresh;
  int rc = 0;
  if (!a->used || a->addr != addr) {
    rc = query(exe, addr, &fresh);
    if (!rc) *a = fresh;
  }
  if (!rc) {
    snprintf(fn, fnlen, "%s", a->fn);
    snprintf(loc, loclen, "%s", a->loc);
  }
  pthread_mutex_unlock(&lines_mu);
  return rc;
}

/* See srcline.h. */
void perf__srcline_stop(void)
{
  pthread_mutex_lock(&lines_mu);
  if (srv.owner == getpid()) stop_locked();
  else if (srv.fd >= 0) close(srv.fd);
  srv = (struct server){.fd = -1};
  memset(kept, 0, sizeof kept);
  pthread_mutex_unlock(&lines_mu);
}
