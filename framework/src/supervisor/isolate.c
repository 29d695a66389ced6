/* isolate.c — runs work that touches CUDA in a forked child and reads what it wrote, so the supervisor never initialises CUDA. */
#define _GNU_SOURCE
#include "supervisor/isolate.h"

#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

/* See child.h. */
long perf__isolate_read(void (*fn)(FILE *out, void *arg), void *arg, char *buf, size_t len)
{
  int fd[2];
  long got = 0;
  buf[0] = '\0';
  fflush(NULL);
  if (pipe(fd)) return -1;
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    close(fd[0]);
    FILE *out = fdopen(fd[1], "w");
    if (out) {
      fn(out, arg);
      fclose(out);
    }
    _exit(0);
  }
  close(fd[1]);
  for (ssize_t r; (size_t)got + 1 < len &&
                  ((r = read(fd[0], buf + got, len - 1 - (size_t)got)) > 0 || (r < 0 && errno == EINTR));)
    got += r > 0 ? r : 0;
  buf[got] = '\0';
  close(fd[0]);
  while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
  }
  return got;
}
