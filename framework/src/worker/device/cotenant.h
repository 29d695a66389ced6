/* cotenant.h — other processes on the timed GPU, and whether a sample overlapped their use. */
/* NVML's process list and its per-process and device utilisation are folded
 * into spans of foreign GPU use. */
#ifndef PERF_COTENANT_H
#define PERF_COTENANT_H

#include <stddef.h>

#include "worker/device/gpuwatch.h"

/* NVML reports per-process utilisation per sampling window of 1/6 s or
 * more, and a window only after it closed: contamination is known per
 * window, late. So:
 *  - a read that shows foreign use marks the span from one window before
 *    the previous read to this read as used by another process;
 *  - a sample is shared when it overlaps such a span or starts less than
 *    PERF__COTENANT_QUIET_S after one ended (the windows covering it may
 *    not be reported yet);
 *  - NVML is read at most once per PERF__COTENANT_POLL_S, and only while
 *    a GPU workload is sampled. */
#define PERF__COTENANT_WINDOW_S (1.0 / 6)
#define PERF__COTENANT_POLL_S (1.0 / 6) /* no more often than NVML samples */
#define PERF__COTENANT_QUIET_S 0.5
/* NVML names one process per sampling window: a window in which our
 * process ran is ours (the H200, 2026-11-29: beside a process streaming
 * copies, every per-process sample of a claim's 2 s named only us, at 99 %,
 * and the device's at 100 % left no gap), so a neighbour seen busy before
 * our samples is not seen again while they run, and a claim beside it ran
 * as if alone (issue 50: 6.6x quiet, 2.4-3.3x beside it, a confirmed FAIL,
 * unnamed). Such a process, while it still holds a context, is taken as
 * busy until a device window at most this busy (percent) comes after its
 * last busy sample: the GPU idle, which our idling (waiting for it to
 * leave) lets NVML see. */
#define PERF__COTENANT_IDLE_PCT 5u
/* Idle time per test waiting for a co-tenant to leave before retaking
 * shared samples; after it, shared samples are kept and marked. */
#define PERF__COTENANT_MAX_WAIT_MS 2000L

/* Host-link (PCIe) traffic, read from GPM (gpuwatch.h) at each read while
 * a workload that copies to or from the host is measured: NVML's
 * utilisation does not show a neighbour that only copies (its copies run
 * beside our kernels on the copy engines, and NVML names us for the
 * window), but the device's link bytes do. Between two reads the device
 * moved more than our own copies' bytes (the workload's traced copies per
 * iteration, times the iterations run) times PERF__COTENANT_LINK_SLACK,
 * plus PERF__COTENANT_LINK_FLOOR bytes a second: the rest is another
 * process's, when another process holds a context on the GPU (without
 * one it is ours: mapped memory, launches, which the trace does not
 * count). The H200, 2026-11-29: quiet, 12-19 MB/s; a pinned 256 MiB
 * host-to-device copy stream, 55-59 GB/s to the device and 5.1 GB/s back
 * (the reads' requests: 8.7 % of its bytes). */
#define PERF__COTENANT_LINK_FLOOR 1e9 /* bytes per second */
#define PERF__COTENANT_LINK_SLACK 1.25 /* x our bytes: the reads' requests */
/* A round is on the link's foreign traffic when it overlaps a span of it
 * or starts less than this after one ended. Not NVML's
 * PERF__COTENANT_QUIET_S: a claim is judged after a read that covers its
 * last round (compare.c polls then), and a span already reaches back to
 * where GPM's trailing samples began to rise, so one GPM interval is
 * left for a span's edge; half a second would cover the whole idle half
 * of a neighbour that copies for 0.5 s and rests for 0.5 s (issue 50:
 * every round of the claims that copy beside it was dropped). */
#define PERF__COTENANT_LINK_QUIET_S PERF__GPUWATCH_LINK_MIN_S
/* (PERF_DEBUG_LINK in the environment prints each interval judged to
 * stderr: the device's rates, ours, the foreign rate: a developer's view.) */

/* Two windows in a row whose device utilisation sample is above the
 * per-process samples' sum by this many percentage points are a process
 * NVML does not list (the H100, 2026-11-26: device and per-process samples
 * every 200 ms, stamped alike; an outside reader saw the gap at 0 in 81
 * windows, idle, with our own work at 40 %, a listed co-tenant at 95 %,
 * and both, and in 123 of 124 windows of a suite run; single windows of
 * 20-80 % with no per-process sample came 1-5 times per suite run; two in
 * a row, at 20-26 %, once in 57 quiet suite runs, where a confirmation
 * passed). */
#define PERF__COTENANT_UNLISTED_MIN 20u

enum { PERF__COTENANT_PROCS = 16, PERF__COTENANT_SPANS = 64, PERF__COTENANT_RECENT = 256 };

/* A foreign process NVML showed using the GPU. */
typedef struct perf__cotenant_proc {
  unsigned pid;
  unsigned sm;      /* highest SM share seen, %; 0: unknown (no per-process
                       utilisation: the process merely holds a context) */
  double last_busy; /* our clock at the last read that showed it */
  unsigned long long busy_ts; /* NVML's stamp of its newest busy sample; 0 none */
  char name[32];    /* /proc/PID/comm; "" when not visible */
  double link;      /* most host-link traffic not ours while it held a
                       context, bytes/s; 0 none */
  int link_up;      /* that traffic went mostly to the host */
} perf__cotenant_proc;

/* What the reads so far say (zero-initialise, then set self). */
/* An interval of foreign use, our clock. */
typedef struct perf__cotenant_span {
  double from, to;
} perf__cotenant_span;

typedef struct perf__cotenant {
  unsigned self;          /* our pid, as this process sees it */
  int self_context;       /* our process holds a context on the GPU */
  int self_listed;        /* NVML lists our pid: no PID namespace between */
  int listed;             /* processes NVML lists with a context, ours too */
  int per_process;        /* the last read had per-process utilisation */
  int reads;              /* reads that told something */
  perf__cotenant_proc procs[PERF__COTENANT_PROCS];
  int nprocs;
  int hidden;             /* most processes at once that used the GPU but
                             cannot be told from ours (NVML lists host PIDs
                             to a container); 0 none */
  double hidden_last;     /* our clock when last seen */
  unsigned long long hidden_ts; /* NVML's stamp of the newest busy sample
                                   counted among them; 0 none */
  unsigned unlisted;      /* most device utilisation (percentage points) that
                             no listed process accounted for; 0 none */
  double unlisted_last;   /* our clock when last seen */
  unsigned long long dev_seen; /* NVML's newest device sample timestamp */
  unsigned long long idle_ts;  /* NVML's stamp of the newest device window
                                  at most PERF__COTENANT_IDLE_PCT busy */
  int dev_known;               /* device windows have been read */
  int several;                 /* a read showed two processes busy in one
                                  window: NVML names them all */
  unsigned long long born_us;  /* when this worker began (NVML's clock:
                                  CPU realtime, microseconds); 0 unknown */
  unsigned long long period_us; /* NVML's sampling period as seen; 0 unknown */
  perf__gpuwatch_util recent[PERF__COTENANT_RECENT]; /* per-process samples
                                  kept for the device's of the same window */
  int nrecent;
  unsigned long long util_newest;  /* the newest per-process stamp seen */
  unsigned long long recent_floor; /* windows up to this lost their
                                      per-process samples (buffer full) */
  unsigned long long gap_ts; /* the last window judged, when it had a gap */
  unsigned gap;             /* its gap, points */
  unsigned long long gap_first; /* the first window of that run of gaps */
  perf__cotenant_span spans[PERF__COTENANT_SPANS]; /* foreign use, oldest first, our clock */
  int nspans;
  perf__cotenant_span link_spans[PERF__COTENANT_SPANS]; /* those of them the link showed */
  int nlink_spans;
  int canary;             /* 1 while a claim's canary judges its rounds
                             (worker/claim/canary.h): a sample is then
                             shared only where the link showed foreign use */
  int link_on;            /* the link is read: 1 yes, 0 no, -1 cannot be */
  int link_stale;         /* no base yet, or alone since it: the next read
                             beside another context takes one */
  double link_before;     /* our bytes just before the watch began */
  double link_from;       /* our clock at the link's base sample */
  double link_seen;       /* our clock at the read after which another
                             context appeared (0: none): its span's start */
  double link_prev_own;   /* our bytes in the last interval judged */
  double link_rise;       /* our clock where the excess began to rise */
  int link_group;         /* most other processes holding a context when
                             traffic not ours was seen (2 or more: named as
                             a group) */
  double own_down, own_up; /* our copies' bytes to the device and to the
                              host since then */
  double link_excess, link_peak; /* bytes beyond ours since the base, by
                                    the rule of PERF__COTENANT_LINK_; its
                                    highest so far */
  double link;            /* most traffic not ours, bytes/s (with hidden
                             processes: for the verdict text) */
  int link_up;            /* it went mostly to the host */
  double link_last;       /* our clock when last seen */
  double last_read;              /* our clock at the last read; 0: none */
  unsigned long long last_seen;  /* NVML's newest sample timestamp */
} perf__cotenant;

/* Folds one read made at now (our clock, seconds) into s: procs[nprocs]
 * the processes with a context (nprocs < 0: no list), util[nutil] the
 * utilisation samples since s->last_seen (nutil < 0: no per-process
 * utilisation). Foreign use: a sample with smUtil > 0 of a pid that is not
 * ours, or, in a read with none, such a pid (more than
 * PERF__COTENANT_IDLE_PCT busy) still listed whose newest busy sample is
 * newer than the last idle device window (s->idle_ts, from
 * perf__cotenant_fold_device), where NVML names one process per window
 * (no read showed two busy in one) and device windows come; where NVML
 * does not list our pid while we hold a context (a container: NVML lists
 * host PIDs), busy pids beyond one (ours) count, not
 * named; without per-process utilisation, every other process holding a
 * context counts as using the GPU (conservative). The first read with
 * samples ignores the driver's history: samples over 1 s older than its
 * newest, and those of processes no longer listed. Never fails. */
void perf__cotenant_fold(perf__cotenant *s, const perf__gpuwatch_proc *procs, int nprocs,
                         const perf__gpuwatch_util *util, int nutil, double now);

/* Folds the device's utilisation samples since s->dev_seen, dev[ndev] in
 * time order (ndev < 0: none to be had), with the per-process samples
 * util[nutil] (nutil < 0: none to be had) read after them, at now (our
 * clock; now_us the same instant on NVML's, CPU realtime in
 * microseconds), into s, before perf__cotenant_fold folds the same read.
 * NVML stamps a window's device and per-process samples alike (a window's
 * are those stamped within half a period of its device sample); the
 * newest window is judged only once a per-process sample as new has come,
 * or at the next read (they may come after the device's). Where NVML sees
 * every process, a device sample equals the sum of the per-process
 * samples with its timestamp (the share of the window in which any kernel
 * ran); PERF__COTENANT_UNLISTED_MIN points more in two windows in a row
 * is GPU time of a process NVML does not list (another container or VM
 * whose processes it hides), and marks the two windows' span (on our
 * clock) as perf__cotenant_fold marks a listed co-tenant's. Samples whose
 * window may reach back before this worker began (born_us: an earlier
 * worker's work) are history; without born_us, the first read's are.
 * Without per-process samples (nutil < 0) our own use cannot be told from
 * another's: nothing is concluded. Every new window at most
 * PERF__COTENANT_IDLE_PCT busy is noted (s->idle_ts). Never fails. */
void perf__cotenant_fold_device(perf__cotenant *s, const perf__gpuwatch_busy *dev, int ndev,
                                const perf__gpuwatch_util *util, int nutil, double now,
                                unsigned long long now_us);

/* Folds the device's host-link traffic between s->link_from and now (to
 * the device and to the host, bytes per second, averaged) with the
 * processes holding a context, procs[nprocs] (nprocs < 0: no list), into
 * s: traffic beyond our own copies' (s->own_down, s->own_up, then zeroed)
 * by the PERF__COTENANT_LINK_ rule, the excess since the link's base
 * rising above its recent highest (GPM's samples trail), while another
 * process holds a context (the span reaches back to s->link_seen when
 * it appeared since the base was taken),
 * marks [s->link_from, now] as foreign use and notes who may have moved
 * it: the one other process holding a context, named with the traffic;
 * several, as a group; unnamed where NVML's pids are not ours to match.
 * Never fails. */
void perf__cotenant_fold_link(perf__cotenant *s, const perf__gpuwatch_proc *procs, int nprocs,
                              double down, double up, double now);

/* A workload that copies to or from the host begins a measurement: from
 * now until perf__cotenant_link_end (the test's end) or
 * perf__cotenant_link_pause, each read made
 * beside another process's context also reads the link. Its base is
 * taken at the first such read (and again after a read alone: every byte
 * is ours then) and stands across the test's claims. Our bytes moved just
 * before the base (before: the workload's untimed calls; what was counted
 * since the last read and in the interval before) may still show in GPM's
 * samples after it: they are allowed for, and so is before when the base
 * already stands. Never fails (where GPM cannot be read, the link is not
 * read). */
void perf__cotenant_link_watch(double before);

/* Counts bytes our own copies moved (a sample's iterations times the
 * workload's traced copies) while the link is read. Never fails. */
void perf__cotenant_link_own(double down, double up);

/* Stops reading the link until the next perf__cotenant_link_watch, keeping
 * the traffic seen so far for the verdicts' words (a BASELINE claim that
 * turned the watch on for its own measurement: the ratio claims after it
 * in the test do not read the link for workloads that do not copy). Never
 * fails. */
void perf__cotenant_link_pause(void);

/* Stops reading the link (the test ended) and forgets the traffic seen,
 * so that a later test names its own. Never fails. */
void perf__cotenant_link_end(void);

/* Notes that this worker begins now (NVML's clock), for the device
 * samples' history. Never fails. */
void perf__cotenant_begin(void);

/* 1 when foreign use known to s overlapped [t0, t1] (our clock) or ended
 * less than PERF__COTENANT_QUIET_S before t0. Never fails. */
int perf__cotenant_overlaps(const perf__cotenant *s, double t0, double t1);

/* 1 when another process was on the GPU as a claim ends now: foreign use
 * known to s within PERF__COTENANT_QUIET_S of now (the rule behind
 * PERF__CONFIRM_STILL_SHARED: no second attempt beside it). Never
 * fails. */
int perf__cotenant_still_on(const perf__cotenant *s);

/* perf__cotenant_overlaps for the spans the link showed alone (foreign
 * traffic on the host link: perf__cotenant_fold_link), with
 * PERF__COTENANT_LINK_QUIET_S after each. Never fails. */
int perf__cotenant_overlaps_link(const perf__cotenant *s, double t0, double t1);

/* 1 when a sample taken over [t0, t1] shared the GPU: perf__cotenant_overlaps,
 * or, while a canary judges the rounds (perf__cotenant_canary),
 * perf__cotenant_overlaps_link: the canary tells the rounds another
 * context delayed, not the traffic on the link; 0 while its link probe
 * judges the link too. Never fails. */
int perf__cotenant_shares(const perf__cotenant *s, double t0, double t1);

/* Sets whether a canary judges the rounds now: 2 the SMs and the host link
 * (its link probe: nothing is then shared as far as this check goes), 1
 * the SMs, 0 not. Never fails. */
void perf__cotenant_canary(int on);


/* This process's state, read from the GPU watch: reads NVML when
 * PERF__COTENANT_POLL_S has passed since the last read (force: now). While
 * the link is watched and another process holds a context, a read also
 * reads the link (forced: waiting out the rest of
 * PERF__GPUWATCH_LINK_MIN_S since the link's base, so that a claim shorter
 * than that is judged too).
 * Returns 1 when the watch gives a process view, 0 when it does not
 * (nothing is known then: no watch, or a driver without the functions). */
int perf__cotenant_poll(int force);

/* The process's state (for the verdict text). Never fails. */
const perf__cotenant *perf__cotenant_state(void);

/* NVML reads made and seconds spent in them by perf__cotenant_poll in this
 * process (the check's cost). Never fails. */
void perf__cotenant_cost(long *reads, double *seconds);

/* Forgets everything (self-tests). Never fails. */
void perf__cotenant_reset(void);

#endif
