/* probe.c — what the supervisor asks of CUDA, answered in a forked child: the device count, the GPU's fingerprint, this machine's baseline file. */
#define _GNU_SOURCE
#include "worker/probe.h"

#include <cuda_runtime_api.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/machine.h"
#include "worker/fingerprint.h"
#include "worker/gpu.h"

/* Runs fn(out, arg) in a forked child, which writes its answer to out and
 * exits; reads the answer into buf[len] (NUL-terminated, truncated to fit)
 * and waits for the child. Returns the bytes read, or -1 when the child
 * could not be started (errno set; buf is empty). */
static long ask_child(void (*fn)(FILE *out, void *arg), void *arg, char *buf, size_t len)
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

/* In the child: the device count, a tab, and why there is none (the
 * driver's state and CUDA's error, as a test's skip says it). */
static void count_devices(FILE *out, void *arg)
{
  char why[600] = "";
  int c = 0;
  (void)arg;
  cudaError_t e = cudaGetDeviceCount(&c);
  if (e != cudaSuccess) {
    c = 0;
    perf__gpu_explain(e, "cudaGetDeviceCount", why, sizeof why);
  } else if (!c) {
    snprintf(why, sizeof why, "cudaGetDeviceCount found no device");
  }
  fprintf(out, "%d\t%s", c, why);
}

/* See probe.h. */
int perf__probe_device_count(char *why, size_t len)
{
  char text[700];
  long got = ask_child(count_devices, NULL, text, sizeof text);
  int e = errno;
  char *tab = got > 0 ? strchr(text, '\t') : NULL;
  int n = tab ? atoi(text) : 0;
  const char *visible = getenv("CUDA_VISIBLE_DEVICES");
  if (why && n <= 0 && got < 0)
    snprintf(why, len, "no process could be started to ask CUDA: %s", strerror(e));
  else if (why && n <= 0)
    snprintf(why, len, "%s%s%s%s", tab && tab[1] ? tab + 1 : "the CUDA probe gave no answer",
             visible ? " (CUDA_VISIBLE_DEVICES=" : "", visible ? visible : "", visible ? ")" : "");
  else if (why && len)
    why[0] = '\0';
  return n > 0 ? n : 0;
}

/* In the child: device 0's fingerprint as "key\tvalue" lines (none
 * without a GPU). */
static void gpu_fingerprint(FILE *out, void *arg)
{
  perf__baseline b = {0};
  (void)arg;
  if (!perf__fingerprint_gpu(&b))
    for (size_t k = 0; k < b.nfp; k++) fprintf(out, "%s\t%s\n", b.fp[k].key, b.fp[k].value);
}

/* See probe.h. */
void perf__probe_gpu_fingerprint(perf__baseline *b)
{
  static char text[PERF__BL_MAX_FP * 260];
  b->nfp = 0;
  ask_child(gpu_fingerprint, NULL, text, sizeof text);
  for (char *line = text, *nl; *line && b->nfp < PERF__BL_MAX_FP; line = nl + 1) {
    char *tab = strchr(line, '\t');
    if (!(nl = strchr(line, '\n')) || !tab || tab > nl) break;
    *tab = *nl = '\0';
    snprintf(b->fp[b->nfp].key, sizeof b->fp[b->nfp].key, "%.47s", line);
    snprintf(b->fp[b->nfp].value, sizeof b->fp[b->nfp].value, "%.199s", tab + 1);
    b->nfp++;
  }
}

/* In the child: the baseline file, the GPU's when one works, the CPU's
 * otherwise. */
static void baseline_file_of(FILE *out, void *dir)
{
  perf__baseline b;
  char path[4200];
  perf__baseline_init(&b);
  if (perf__fingerprint_gpu(&b)) perf__machine_host(&b);
  fprintf(out, "%s\n", perf__baseline_path(dir, &b, path, sizeof path));
}

/* See probe.h. */
int perf__probe_baseline_file(const char *dir, char *path, size_t len)
{
  return ask_child(baseline_file_of, (void *)dir, path, len) > 0 ? 0 : -1;
}
