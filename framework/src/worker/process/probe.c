/* probe.c — what the supervisor asks of CUDA, answered in a forked child. */
/* The device count, the GPU's fingerprint, and this machine's baseline file. */
#define _GNU_SOURCE
#include "worker/process/probe.h"

#include <cuda_runtime_api.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/clock.h"
#include "io/json.h"
#include "baseline/machine.h"
#include "worker/device/cotenant.h"
#include "worker/device/neighbour.h"
#include "worker/device/fingerprint.h"
#include "worker/device/gpu.h"
#include "worker/device/gpuwatch.h"

/* Starts fn(out, arg) in a forked child, which writes its answer to out
 * and exits: *pid and *rfd (the answer's read end) for finish_child.
 * Returns 0, or -1 when the child could not be started (errno set). */
static int start_child(void (*fn)(FILE *out, void *arg), void *arg, pid_t *pid, int *rfd)
{
  int fd[2];
  fflush(NULL);
  if (pipe(fd)) return -1;
  *pid = fork();
  if (*pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return -1;
  }
  if (*pid == 0) {
    close(fd[0]);
    FILE *out = fdopen(fd[1], "w");
    if (out) {
      fn(out, arg);
      fclose(out);
    }
    _exit(0);
  }
  close(fd[1]);
  *rfd = fd[0];
  return 0;
}

/* Reads the answer of the child pid from rfd into buf[len] (NUL-terminated,
 * truncated to fit), closes rfd and waits for the child. Returns the bytes
 * read. Never fails (a child that said nothing: 0). */
static long finish_child(pid_t pid, int rfd, char *buf, size_t len)
{
  long got = 0;
  for (ssize_t r; (size_t)got + 1 < len &&
                  ((r = read(rfd, buf + got, len - 1 - (size_t)got)) > 0 || (r < 0 && errno == EINTR));)
    got += r > 0 ? r : 0;
  buf[got] = '\0';
  close(rfd);
  while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
  }
  return got;
}

/* Runs fn(out, arg) in a forked child and reads its answer into buf[len]
 * (NUL-terminated, truncated to fit). Returns the bytes read, or -1 when
 * the child could not be started (errno set; buf is empty). */
static long ask_child(void (*fn)(FILE *out, void *arg), void *arg, char *buf, size_t len)
{
  pid_t pid;
  int rfd;
  buf[0] = '\0';
  return start_child(fn, arg, &pid, &rfd) ? -1 : finish_child(pid, rfd, buf, len);
}

/* The usable devices; 0 with why into why[len] (the driver's state and
 * CUDA's error, as a test's skip says it). */
static int devices(char *why, size_t len)
{
  int c = 0;
  cudaError_t e = cudaGetDeviceCount(&c);
  if (e != cudaSuccess) {
    c = 0;
    perf__gpu_explain(e, "cudaGetDeviceCount", why, len);
  } else if (!c) {
    snprintf(why, len, "cudaGetDeviceCount found no device");
  }
  return c;
}

/* In the child: the device count, a tab, and why there is none. */
static void count_devices(FILE *out, void *arg)
{
  char why[600] = "";
  (void)arg;
  int c = devices(why, sizeof why);
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
 * otherwise (baseline/machine.h: the one a run reads). */
static void baseline_file_of(FILE *out, void *dir)
{
  perf__baseline b, file;
  char path[4200], note[1200];
  perf__baseline_init(&b);
  if (perf__fingerprint_gpu(&b)) perf__machine_host(&b);
  perf__machine_load(dir, &b, &file, path, sizeof path, note, sizeof note);
  perf__baseline_free(&file);
  fprintf(out, "%s\n", path);
}

/* See probe.h. */
int perf__probe_baseline_file(const char *dir, char *path, size_t len)
{
  return ask_child(baseline_file_of, (void *)dir, path, len) > 0 ? 0 : -1;
}

/* The mode NVML gave (gpuwatch.h) as the preflight words it. */
static void mode_text(int mode, char *buf, size_t len)
{
  snprintf(buf, len, "%s", mode == 1 ? "on" : mode == 0 ? "off" : mode == -2 ? "unsupported" : "");
}

/* Whether the SM clock is locked: an application clock set away from its
 * default (nvidia-smi -ac), or the clock-event reason of user-defined
 * clocks (nvmlClocksEventReasonApplicationsClocksSetting, raised by -ac
 * and by a -lgc lock that holds the clock); unknown when NVML tells
 * neither. NVML has no getter for a -lgc lock itself. */
static int locked(const perf__gpuwatch_setting *s)
{
  unsigned long long r = 0;
  int reasons = perf__gpuwatch_reasons(&r) == 0;
  if (s->app_mhz >= 0 && s->default_app_mhz >= 0 && s->app_mhz != s->default_app_mhz) return 1;
  if (reasons) return (r & 0x2) ? 1 : 0;
  return PERF__PREFLIGHT_UNKNOWN;
}

/* The other processes on the GPU into g: NVML's list and its per-process
 * use folded as the co-tenant check folds them for a workload without a
 * context (this process has none): busy ones counted and named, idle
 * context holders counted. Unknown when NVML lists nothing. */
static void other_processes(perf__preflight_gpu *g)
{
  perf__gpuwatch_proc procs[64];
  perf__gpuwatch_util util[256];
  unsigned np = 0, nu = 0;
  perf__cotenant s = {.self = (unsigned)getpid()};
  int have_procs = perf__gpuwatch_processes(procs, 64, &np) == 0;
  int have_util = perf__gpuwatch_process_util(util, 256, &nu, 0) == 0;
  if (!have_procs && !have_util) return;
  perf__cotenant_fold(&s, procs, have_procs ? (int)np : -1, util, have_util ? (int)nu : -1,
                      perf__clock_now());
  g->others = s.nprocs + s.hidden;
  g->idle = 0;
  for (unsigned i = 0; have_procs && i < np; i++) {
    int busy = 0;
    for (int k = 0; k < s.nprocs; k++) busy |= s.procs[k].pid == procs[i].pid;
    g->idle += !busy && procs[i].pid != s.self;
  }
  perf__neighbour_describe(&s, 0, g->who, sizeof g->who);
}

/* See probe.h. */
void perf__probe_preflight_nvml(const char *bus, perf__preflight_gpu *g)
{
  unsigned cur = 0, max = 0;
  perf__gpuwatch_setting s;
  if (perf__gpuwatch_open(bus, g->nvml_off, sizeof g->nvml_off)) return;
  g->nvml_off[0] = '\0';
  if (perf__gpuwatch_sm_clock(&cur, &max) == 0) g->sm_mhz = cur, g->max_mhz = max;
  perf__gpuwatch_settings(&s);
  if (s.app_mhz >= 0) g->app_mhz = (double)s.app_mhz;
  if (s.default_app_mhz >= 0) g->default_app_mhz = (double)s.default_app_mhz;
  g->persistence = s.persistence >= 0 ? s.persistence : PERF__PREFLIGHT_UNKNOWN;
  mode_text(s.ecc, g->ecc, sizeof g->ecc);
  mode_text(s.mig, g->mig, sizeof g->mig);
  g->locked = locked(&s);
  other_processes(g);
}

/* In the child: the preflight's GPU readings as "key\tvalue" lines. */
static void preflight_gpu(FILE *out, void *arg)
{
  perf__preflight_gpu g;
  perf__json j = {0};
  char bus[32];
  struct cudaDeviceProp p;
  int device = *(const int *)arg;
  perf__preflight_gpu_init(&g);
  if (device >= 0) {
    char id[16];
    snprintf(id, sizeof id, "%d", device);
    setenv("CUDA_VISIBLE_DEVICES", id, 1);
  }
  if (devices(g.none, sizeof g.none) > 0) {
    if (cudaGetDeviceProperties(&p, 0) == cudaSuccess) snprintf(g.name, sizeof g.name, "%.127s", p.name);
    cudaError_t e = cudaDeviceGetPCIBusId(bus, sizeof bus, 0);
    if (e)
      snprintf(g.nvml_off, sizeof g.nvml_off, "cudaDeviceGetPCIBusId: %s", cudaGetErrorString(e));
    else {
      snprintf(g.bus_id, sizeof g.bus_id, "%s", bus);
      perf__probe_preflight_nvml(bus, &g);
    }
  } else if (device >= 0) {
    size_t used = strlen(g.none);
    snprintf(g.none + used, sizeof g.none - used, " (CUDA_VISIBLE_DEVICES=%d)", device);
  }
  perf__preflight_gpu_text(&j, &g);
  if (j.s) fputs(j.s, out);
  perf__json_free(&j);
}

/* See probe.h. */
void perf__probe_preflight_start(int device, perf__probe_pending *p)
{
  *p = (perf__probe_pending){.device = device, .fd = -1};
  if (start_child(preflight_gpu, &p->device, &p->pid, &p->fd)) p->err = errno ? errno : EIO;
}

/* See probe.h. */
void perf__probe_preflight_finish(perf__probe_pending *p, perf__preflight_gpu *g)
{
  static char text[8192];
  long got = p->err ? -1 : finish_child(p->pid, p->fd, text, sizeof text);
  perf__preflight_gpu_parse(got > 0 ? text : (char[]){""}, g);
  if (got < 0)
    snprintf(g->none, sizeof g->none, "no process could be started to ask CUDA: %s",
             strerror(p->err));
  else if (!got)
    snprintf(g->none, sizeof g->none, "the CUDA probe gave no answer");
  p->fd = -1;
}
