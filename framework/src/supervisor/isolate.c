/* isolate.c — runs work that touches CUDA in a forked child and reads what it wrote, so the supervisor never initialises CUDA. */
#define _GNU_SOURCE
#include "supervisor/isolate.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "worker/fingerprint.h"

/* See isolate.h. */
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

/* In a child: device 0's fingerprint as "key\tvalue" lines (none without a
 * GPU). */
static void gpu_fingerprint(FILE *out, void *arg)
{
  perf__baseline b = {0};
  (void)arg;
  if (!perf__fingerprint_gpu(&b))
    for (size_t k = 0; k < b.nfp; k++) fprintf(out, "%s\t%s\n", b.fp[k].key, b.fp[k].value);
}

/* See isolate.h. */
void perf__isolate_fingerprint_gpu(perf__baseline *b)
{
  static char text[PERF__BL_MAX_FP * 260];
  b->nfp = 0;
  if (perf__isolate_read(gpu_fingerprint, NULL, text, sizeof text) <= 0) return;
  for (char *line = text, *nl; *line && b->nfp < PERF__BL_MAX_FP; line = nl + 1) {
    char *tab = strchr(line, '\t');
    if (!(nl = strchr(line, '\n')) || !tab || tab > nl) break;
    *tab = *nl = '\0';
    snprintf(b->fp[b->nfp].key, sizeof b->fp[b->nfp].key, "%.47s", line);
    snprintf(b->fp[b->nfp].value, sizeof b->fp[b->nfp].value, "%.199s", tab + 1);
    b->nfp++;
  }
}
