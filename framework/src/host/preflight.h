/* preflight.h — the runner before a run: its readings, and the thresholds that make it unfit. */
/* Each GPU's and the host's readings (one field table for the pipe, JSON and
 * the history), and the preflight line. */
#ifndef PERF_PREFLIGHT_H
#define PERF_PREFLIGHT_H

#include <stddef.h>

#include "io/json.h"

/* The host window: /proc/stat and the cgroup read this long apart (host
 * monotonic clock). Short, as the run waits for it; long enough for a few
 * clock ticks on each CPU. */
#define PERF__PREFLIGHT_WINDOW_S 0.15

/* Most unfit causes one GPU's preflight names (one per threshold row). */
enum { PERF__PREFLIGHT_CAUSES = 4 };

/* A tri-state reading: unknown (NVML gives no answer), off, on. */
enum { PERF__PREFLIGHT_UNKNOWN = -1, PERF__PREFLIGHT_OFF = 0, PERF__PREFLIGHT_ON = 1 };

/* One GPU as NVML and CUDA show it before the run. Numbers are NAN and
 * texts "" when unknown. */
typedef struct perf__preflight_gpu {
  char none[700];       /* why there is no CUDA device ("" when there is one) */
  char name[128], bus_id[32];
  double sm_mhz, app_mhz, default_app_mhz, max_mhz;
  int locked, persistence; /* PERF__PREFLIGHT_UNKNOWN, _OFF or _ON */
  char ecc[16], mig[16];   /* "on", "off", "unsupported"; "" unknown */
  double others;           /* other processes using the GPU (busy, or holding a
                              context where NVML gives no per-process use) */
  double idle;             /* other processes holding a context, idle */
  char who[400];           /* the others named ("pid 4145 (python3), 97 % SM") */
  char nvml_off[300];      /* why NVML gave nothing ("" when it did) */
} perf__preflight_gpu;

/* The host over the window. Numbers NAN and texts "" when unknown. */
typedef struct perf__preflight_host {
  double cpus, usable, threads; /* online, this run may use, perf_host_threads() */
  double runs;                  /* live perfgate runs sharing the CPUs (this one too) */
  double load1, others_cpus;    /* 1-min load; CPUs other processes kept busy */
  double steal_pct, quota_cpus, throttled_ms, window_s;
  char governor[32];
} perf__preflight_host;

/* One cause of unfitness: its check (a threshold row), number and text. */
typedef struct perf__preflight_cause {
  const char *check;
  double value, limit;
  char text[500];
} perf__preflight_cause;

/* One GPU's preflight with the host's. */
typedef struct perf__preflight {
  int device;         /* the GPU's label (--devices id; 0 without) */
  perf__preflight_gpu gpu;
  perf__preflight_host host;
  double seconds;     /* what taking it cost, host clock */
  perf__preflight_cause cause[PERF__PREFLIGHT_CAUSES];
  int ncauses;
} perf__preflight;

/* A GPU reading with every value unknown. Never fails. */
void perf__preflight_gpu_init(perf__preflight_gpu *g);

/* The host's readings over a window of PERF__PREFLIGHT_WINDOW_S or more:
 * during(ctx) runs in it (the GPU probes: children this process reaps
 * there, whose CPU time is this run's, not other processes'), then this
 * process sleeps out the rest. Never fails: what cannot be read stays
 * unknown. */
void perf__preflight_host_read(perf__preflight_host *h, void (*during)(void *ctx), void *ctx);

/* g as "key\tvalue" lines (the probe's pipe), every field of the table.
 * Never fails (j->oom). */
void perf__preflight_gpu_text(perf__json *j, const perf__preflight_gpu *g);

/* Reads those lines (text, modified) into g, initialised first; keys it
 * does not know are skipped. Never fails. */
void perf__preflight_gpu_parse(char *text, perf__preflight_gpu *g);

/* Fills p->cause from the thresholds table. Returns p->ncauses. */
int perf__preflight_judge(perf__preflight *p);

/* The preflight line ("preflight GPU 0 (NAME): SM clock ...; host: ...")
 * into buf[len]. Never fails (truncates). */
const char *perf__preflight_line(const perf__preflight *p, char *buf, size_t len);

/* The name of row k of the thresholds table ("gpu_processes"...); NULL
 * past the last. Never fails. */
const char *perf__preflight_check(int k);

/* p's causes as "cause; cause" into buf[len] ("" none). Never fails. */
const char *perf__preflight_causes(const perf__preflight *p, char *buf, size_t len);

/* One element of the report's "preflight" array: {"device", "gpu", "host",
 * "unfit": [{"check", "value", "limit", "text"}], "seconds"}. Never fails
 * (j->oom). */
void perf__preflight_json(perf__json *j, const perf__preflight *p);

#endif
