/* cotenant.c — other processes on the GPU: NVML's view, the rule for shared rounds, the fixture. */
/* NVML's view folded into foreign use, the claim rule for shared rounds, the
 * stand-in NVML, and the fixture under a co-tenant. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host/clock.h"
#include "record/confirm.h"
#include "selftest.h"
#include "worker/claim/canary.h"
#include "worker/claim/compare.h"
#include "worker/claim/measrec.h"
#include "worker/device/cotenant.h"
#include "worker/device/neighbour.h"
#include "worker/device/gpuwatch.h"
#include "worker/sample/retake.h"

/* NVML's stamps: microseconds of CPU realtime; t s on our clock is US(t). */
#define US(t) ((unsigned long long)((t) * 1e6 + 0.5))

/* A state for pid self that holds a context, with one read made at 9.9 s. */
static perf__cotenant fresh(unsigned self)
{
  perf__cotenant s = {.self = self, .self_context = 1};
  perf__cotenant_fold(&s, NULL, 0, NULL, 0, 9.9); /* a quiet first read */
  return s;
}

ST_TEST(cotenant_foreign_use_marks_its_window_and_names_the_process)
{
  unsigned other = (unsigned)getpid(); /* a pid /proc names: this test's */
  perf__cotenant s = fresh(100);
  perf__gpuwatch_proc procs[] = {{.pid = 100}, {.pid = other}};
  perf__gpuwatch_util util[] = {{.pid = 100, .ts = 5, .sm = 40}, {.pid = other, .ts = 7, .sm = 97}};
  perf__cotenant_fold(&s, procs, 2, util, 2, 10.0);
  ST_EQ(s.self_listed, 1);
  ST_EQ(s.nspans, 1);
  ST_EQ(s.last_seen, 7); /* the next read asks for newer samples only */
  /* The window before the previous read up to this read is foreign use... */
  ST_NEAR(s.spans[0].from, 9.9 - PERF__COTENANT_WINDOW_S, 1e-12);
  ST_NEAR(s.spans[0].to, 10.0, 1e-12);
  ST_EQ(perf__cotenant_overlaps(&s, 9.80, 9.85), 1);
  ST_EQ(perf__cotenant_overlaps(&s, 9.50, 9.60), 0); /* before it */
  /* ...and so is what follows it until NVML has had time to say it ended. */
  ST_EQ(perf__cotenant_overlaps(&s, 10.0 + PERF__COTENANT_QUIET_S - 0.01, 10.6), 1);
  ST_EQ(perf__cotenant_overlaps(&s, 10.0 + PERF__COTENANT_QUIET_S + 0.01, 10.6), 0);
  char who[240], want[240], comm[64] = "";
  FILE *f = fopen("/proc/self/comm", "r");
  ST_CHECK(f && fgets(comm, sizeof comm, f));
  if (f) fclose(f);
  comm[strcspn(comm, "\n")] = '\0';
  snprintf(want, sizeof want, "pid %u (%s), 97 %% SM", other, comm);
  ST_STR(perf__neighbour_describe(&s, 9.0, who, sizeof who), want);
  /* A claim that began within the quiet margin after its last use counts
   * it as shared (perf__cotenant_overlaps), and names it; one after, not.
   * (On the H100 such a claim said "during 3 of 12 rounds: ;".) */
  ST_STR(perf__neighbour_describe(&s, 10.0 + PERF__COTENANT_QUIET_S - 0.01, who, sizeof who),
         want);
  ST_STR(perf__neighbour_describe(&s, 10.0 + PERF__COTENANT_QUIET_S + 0.01, who, sizeof who), "");
  /* A quiet read later, the process gone, opens no span; a busy one after
   * it a new one, from one window before the quiet read. */
  perf__gpuwatch_proc just_ours[] = {{.pid = 100}};
  perf__cotenant_fold(&s, just_ours, 1, util, 1, 11.0);
  ST_EQ(s.nspans, 1);
  perf__gpuwatch_util again[] = {{.pid = 4000000, .ts = 9, .sm = 12}};
  perf__cotenant_fold(&s, procs, 2, again, 1, 12.0);
  ST_EQ(s.nspans, 2);
  ST_NEAR(s.spans[1].from, 11.0 - PERF__COTENANT_WINDOW_S, 1e-12);
  ST_EQ(perf__cotenant_overlaps(&s, 10.55, 10.8), 0); /* between the two */
  ST_EQ(perf__cotenant_overlaps(&s, 10.55, 10.9), 1);
  /* busiest first; a pid /proc does not show is not named */
  snprintf(want, sizeof want, "pid %u (%s), 97 %% SM; pid 4000000, 12 %% SM", other, comm);
  ST_STR(perf__neighbour_describe(&s, 0, who, sizeof who), want);
}

/* NVML names one process per window, and while we run it names us: a
 * neighbour seen busy before stays busy while it holds a context, until a
 * device window at most PERF__COTENANT_IDLE_PCT busy comes after its last
 * busy sample; the verdict names it all along. (A copy-only neighbour on
 * the H200 was named once, then every window of a 2 s claim was ours at
 * 99 %; the claim ran as if alone.) */
ST_TEST(cotenant_a_neighbour_hidden_behind_our_windows_stays_busy)
{
  perf__cotenant s = fresh(100);
  perf__gpuwatch_proc both[] = {{.pid = 100}, {.pid = 4000000}}, ours[] = {{.pid = 100}};
  perf__gpuwatch_busy d0[] = {{.ts = US(9.8), .pct = 100}};
  perf__cotenant_fold_device(&s, d0, 1, NULL, 0, 9.95, US(9.95)); /* device windows come */
  perf__gpuwatch_util seen[] = {{.pid = 4000000, .ts = US(9.9), .sm = 40}};
  perf__cotenant_fold(&s, both, 2, seen, 1, 10.0);
  ST_EQ(s.nspans, 1);
  /* every later window is ours: the neighbour stays busy, however long */
  perf__gpuwatch_util us1[] = {{.pid = 100, .ts = US(10.1), .sm = 99}};
  perf__cotenant_fold(&s, both, 2, us1, 1, 10.2);
  ST_NEAR(s.spans[0].to, 10.2, 1e-12);
  perf__gpuwatch_util us2[] = {{.pid = 100, .ts = US(11.9), .sm = 99}};
  perf__cotenant_fold(&s, both, 2, us2, 1, 12.0);
  ST_EQ(s.nspans, 1);
  ST_NEAR(s.spans[0].to, 12.0, 1e-12);
  ST_EQ(perf__cotenant_overlaps(&s, 11.0, 11.1), 1);
  char who[240];
  ST_STR(perf__neighbour_describe(&s, 11.9, who, sizeof who), "pid 4000000, 40 % SM");
  /* a busy device window does not end it; an idle one after its last busy
   * sample does (we idled, and NVML named no one), the newest too */
  perf__gpuwatch_busy busy[] = {{.ts = US(12.1), .pct = 100}, {.ts = US(12.15), .pct = 100}};
  perf__cotenant_fold_device(&s, busy, 2, us2, 0, 12.16, US(12.16));
  perf__cotenant_fold(&s, both, 2, NULL, 0, 12.2);
  ST_NEAR(s.spans[0].to, 12.2, 1e-12);
  perf__gpuwatch_busy idle[] = {{.ts = US(12.3), .pct = 0}};
  perf__cotenant_fold_device(&s, idle, 1, us2, 0, 12.31, US(12.31));
  ST_EQ(s.idle_ts, US(12.3));
  perf__cotenant_fold(&s, both, 2, NULL, 0, 12.4);
  ST_NEAR(s.spans[0].to, 12.2, 1e-12);
  /* seen busy again: held again; then gone from the list: not */
  perf__gpuwatch_util again[] = {{.pid = 4000000, .ts = US(12.5), .sm = 60}};
  perf__cotenant_fold(&s, both, 2, again, 1, 12.6);
  perf__cotenant_fold(&s, both, 2, NULL, 0, 12.7);
  double to = s.spans[s.nspans - 1].to;
  ST_NEAR(to, 12.7, 1e-12);
  perf__cotenant_fold(&s, ours, 1, NULL, 0, 12.8);
  ST_NEAR(s.spans[s.nspans - 1].to, to, 1e-12);
  /* ...and a later process given its pid, idle, is not held */
  perf__cotenant_fold(&s, both, 2, NULL, 0, 12.9);
  ST_NEAR(s.spans[s.nspans - 1].to, to, 1e-12);
  /* A process that only holds a context (never seen busy) never counts. */
  perf__cotenant idle_ctx = fresh(100);
  perf__cotenant_fold_device(&idle_ctx, d0, 1, NULL, 0, 9.95, US(9.95));
  perf__cotenant_fold(&idle_ctx, both, 2, NULL, 0, 10.0);
  perf__cotenant_fold(&idle_ctx, both, 2, us1, 1, 10.2);
  ST_EQ(idle_ctx.nspans, 0);
}

/* The hold only where it is needed and can end: not without device
 * windows (nothing would end it), not where NVML names two processes in
 * one window (it names them all: the H100's driver), not for a share of a
 * few percent. */
ST_TEST(cotenant_a_neighbour_is_held_only_where_nvml_hides_it)
{
  perf__gpuwatch_proc both[] = {{.pid = 100}, {.pid = 4000000}};
  perf__gpuwatch_util seen[] = {{.pid = 4000000, .ts = US(9.9), .sm = 40}};
  perf__gpuwatch_util ours[] = {{.pid = 100, .ts = US(10.1), .sm = 99}};
  perf__gpuwatch_busy d0[] = {{.ts = US(9.8), .pct = 100}};
  /* no device windows */
  perf__cotenant s = fresh(100);
  perf__cotenant_fold(&s, both, 2, seen, 1, 10.0);
  perf__cotenant_fold(&s, both, 2, ours, 1, 10.2);
  ST_NEAR(s.spans[0].to, 10.0, 1e-12);
  /* two busy in one window */
  perf__cotenant t = fresh(100);
  perf__cotenant_fold_device(&t, d0, 1, NULL, 0, 9.95, US(9.95));
  perf__gpuwatch_util two[] = {{.pid = 4000000, .ts = US(9.9), .sm = 40},
                               {.pid = 100, .ts = US(9.9) + 3, .sm = 50}};
  perf__cotenant_fold(&t, both, 2, two, 2, 10.0);
  ST_EQ(t.several, 1);
  perf__cotenant_fold(&t, both, 2, ours, 1, 10.2);
  ST_NEAR(t.spans[0].to, 10.0, 1e-12);
  /* a share at the idle line */
  perf__cotenant u = fresh(100);
  perf__cotenant_fold_device(&u, d0, 1, NULL, 0, 9.95, US(9.95));
  perf__gpuwatch_util faint[] = {{.pid = 4000000, .ts = US(9.9), .sm = PERF__COTENANT_IDLE_PCT}};
  perf__cotenant_fold(&u, both, 2, faint, 1, 10.0);
  perf__cotenant_fold(&u, both, 2, ours, 1, 10.2);
  ST_NEAR(u.spans[0].to, 10.0, 1e-12);
}

/* A fresh worker's first read: the neighbour's one named window came just
 * before the workload's first calls, whose samples are the newest; it is
 * kept when within a second of the worker's start, not of the newest. */
ST_TEST(cotenant_a_first_read_keeps_a_neighbour_named_before_the_worker_began)
{
  perf__cotenant s = {.self = 100, .self_context = 1, .born_us = US(10.0)};
  perf__gpuwatch_proc both[] = {{.pid = 100}, {.pid = 4000000}};
  perf__gpuwatch_util buf[] = {{.pid = 4000000, .ts = US(9.7), .sm = 40},
                               {.pid = 100, .ts = US(11.0), .sm = 99},
                               {.pid = 100, .ts = US(11.2), .sm = 99}};
  perf__cotenant_fold(&s, both, 2, buf, 3, 11.3);
  ST_EQ(s.nspans, 1);
  ST_EQ(s.nprocs, 1);
  /* from before the start's second: history */
  perf__cotenant t = {.self = 100, .self_context = 1, .born_us = US(10.0)};
  buf[0].ts = US(8.9);
  perf__cotenant_fold(&t, both, 2, buf, 3, 11.3);
  ST_EQ(t.nspans, 0);
}

/* GPU time beyond what the per-process samples of the same window
 * account for, in two windows in a row, is a process NVML does not list.
 * NVML's stamps here are microseconds; 10.0 s on our clock is 10 000 000. */
ST_TEST(cotenant_device_time_no_listed_process_accounts_for)
{
  perf__cotenant s = fresh(100);
  perf__gpuwatch_util u0[] = {{.pid = 100, .ts = US(9.4), .sm = 40}, {.pid = 100, .ts = US(9.6), .sm = 40},
                              {.pid = 100, .ts = US(9.8), .sm = 40}};
  perf__gpuwatch_busy d0[] = {{.ts = US(9.4), .pct = 95}, {.ts = US(9.6), .pct = 95}, {.ts = US(9.8), .pct = 95}};
  perf__cotenant_fold_device(&s, d0, 3, u0, 3, 10.0, US(10.0)); /* the first read: history */
  ST_EQ(s.dev_seen, US(9.8));
  ST_EQ(s.period_us, 200000);
  ST_EQ(s.nspans, 0);
  /* Accounted for: ours 40 and another listed 55 (stamped a few
   * microseconds apart). */
  perf__gpuwatch_util u1[] = {{.pid = 100, .ts = US(10.0) + 3, .sm = 40}, {.pid = 7, .ts = US(10.0), .sm = 55}};
  perf__gpuwatch_busy d1[] = {{.ts = US(10.0), .pct = 95}};
  perf__cotenant_fold_device(&s, d1, 1, u1, 2, 10.1, US(10.1));
  perf__cotenant_fold(&s, NULL, 0, u1, 2, 10.1);
  ST_EQ(s.dev_seen, US(10.0));
  ST_EQ(s.gap_ts, 0);
  /* The newest window waits while its per-process samples may be missing,
   * and is judged with those that come in the next read. */
  perf__gpuwatch_busy d2[] = {{.ts = US(10.2), .pct = 100}};
  perf__cotenant_fold_device(&s, d2, 1, NULL, 0, 10.25, US(10.25));
  ST_EQ(s.dev_seen, US(10.0)); /* not judged yet */
  perf__gpuwatch_util u2[] = {{.pid = 100, .ts = US(10.2), .sm = 90}};
  perf__cotenant_fold_device(&s, d2, 1, u2, 1, 10.3, US(10.3));
  ST_EQ(s.dev_seen, US(10.2));
  ST_EQ(s.gap_ts, 0); /* 100 vs 90: within the margin */
  /* One window of 60 points no process accounts for, then a clean one:
   * NVML leaves single windows unattributed now and then. */
  perf__gpuwatch_util ours[] = {{.pid = 100, .ts = US(10.4), .sm = 40}, {.pid = 100, .ts = US(10.6), .sm = 40},
                                {.pid = 100, .ts = US(10.8), .sm = 40}, {.pid = 100, .ts = US(11.0), .sm = 40}};
  perf__gpuwatch_busy d3[] = {{.ts = US(10.4), .pct = 100}, {.ts = US(10.6), .pct = 40}};
  perf__cotenant_fold_device(&s, d3, 2, ours, 2, 10.7, US(10.7));
  ST_EQ(s.unlisted, 0);
  ST_EQ(s.nspans, 0);
  /* Two in a row (10.8, then 11.0 in the next read): another process, over
   * those two windows on our clock. */
  perf__gpuwatch_busy d4[] = {{.ts = US(10.8), .pct = 100}}, d5[] = {{.ts = US(11.0), .pct = 75}};
  perf__cotenant_fold_device(&s, d4, 1, ours + 2, 1, 10.9, US(10.9));
  ST_EQ(s.nspans, 0);
  perf__cotenant_fold_device(&s, d5, 1, ours + 3, 1, 11.1, US(11.1));
  ST_EQ(s.nspans, 1);
  ST_EQ(s.unlisted, 60); /* the larger of the two */
  ST_NEAR(s.spans[0].from, 10.6, 1e-6); /* one period before the first */
  ST_NEAR(s.spans[0].to, 11.0, 1e-6);
  char who[240];
  ST_STR(perf__neighbour_describe(&s, 11.05, who, sizeof who),
         "GPU time no process NVML lists accounts for (up to 60 % of a window)");
  ST_STR(perf__neighbour_describe(&s, 11.1 + PERF__COTENANT_QUIET_S + 0.01, who, sizeof who), "");
  /* Without per-process samples our own use cannot be told from another's. */
  perf__gpuwatch_busy d6[] = {{.ts = US(11.2), .pct = 100}, {.ts = US(11.4), .pct = 100}};
  perf__cotenant_fold_device(&s, d6, 2, NULL, -1, 11.5, US(11.5));
  ST_NEAR(s.unlisted_last, 11.1, 0);
  /* A worker that knows when it began: a window that may reach back before
   * it is history, later ones are judged (period 50 ms). */
  perf__cotenant w = {.self = 100, .self_context = 1, .born_us = US(5.0)};
  perf__gpuwatch_busy d7[] = {{.ts = US(4.95), .pct = 90}, {.ts = US(5.0), .pct = 90},
                              {.ts = US(5.05), .pct = 90}, {.ts = US(5.1), .pct = 90},
                              {.ts = US(5.15), .pct = 90}};
  perf__gpuwatch_util none[] = {{.pid = 100, .ts = US(5.15), .sm = 0}};
  perf__cotenant_fold_device(&w, d7, 3, none, 1, 5.16, US(5.16)); /* up to 5.05: history */
  ST_EQ(w.unlisted, 0);
  perf__cotenant_fold_device(&w, d7 + 3, 2, none, 1, 5.17, US(5.17)); /* 5.1 and 5.15 */
  ST_EQ(w.unlisted, 90);
  /* Per-process samples lost to a full buffer: their windows are not judged. */
  perf__cotenant f = {.self = 100, .self_context = 1, .born_us = 1, .period_us = 200};
  perf__gpuwatch_util many[PERF__COTENANT_RECENT + 2];
  for (int i = 0; i < PERF__COTENANT_RECENT + 2; i++)
    many[i] = (perf__gpuwatch_util){.pid = 100, .ts = 2000 + 200 * (unsigned long long)(i / 2), .sm = 40};
  perf__gpuwatch_busy d8[] = {{.ts = 2000, .pct = 40}, {.ts = 2200, .pct = 40}, {.ts = 2400, .pct = 40}};
  perf__cotenant_fold_device(&f, d8, 3, many, PERF__COTENANT_RECENT + 2, 1.0, 1000000);
  ST_CHECK(f.recent_floor >= 2000);
  ST_EQ(f.unlisted, 0);
  ST_EQ(f.gap_ts, 0);
}

ST_TEST(cotenant_our_own_use_is_not_foreign)
{
  perf__cotenant s = fresh(100);
  perf__gpuwatch_proc procs[] = {{.pid = 100}, {.pid = 200}};
  /* ours busy; another process holds a context but used no SM */
  perf__gpuwatch_util util[] = {{.pid = 100, .ts = 5, .sm = 99}, {.pid = 200, .ts = 5, .sm = 0}};
  perf__cotenant_fold(&s, procs, 2, util, 2, 10.0);
  ST_EQ(s.nspans, 0);
  ST_EQ(s.nprocs, 0);
  ST_EQ(perf__cotenant_overlaps(&s, 0, 100), 0);
}

ST_TEST(cotenant_first_read_ignores_the_drivers_history)
{
  perf__cotenant s = fresh(100);
  perf__gpuwatch_proc procs[] = {{.pid = 100}, {.pid = 200}};
  /* pid 200 was busy 3 s before the newest sample: long gone; pid 300,
   * just now, but it has ended (no longer listed: an earlier worker) */
  perf__gpuwatch_util util[] = {{.pid = 200, .ts = 1000000, .sm = 90},
                                {.pid = 300, .ts = 3900000, .sm = 80},
                                {.pid = 100, .ts = 4000000, .sm = 50}};
  perf__cotenant_fold(&s, procs, 2, util, 3, 10.0);
  ST_EQ(s.nspans, 0);
  ST_EQ(s.last_seen, 4000000);
  /* later reads count every sample they get (all newer than the last),
   * of a process that ended since too: it shared the GPU with us */
  perf__gpuwatch_util later[] = {{.pid = 300, .ts = 4100000, .sm = 90},
                                 {.pid = 100, .ts = 5200000, .sm = 50}};
  perf__cotenant_fold(&s, procs, 2, later, 2, 11.0);
  ST_EQ(s.nspans, 1);
  ST_EQ(s.procs[0].pid, 300);
}

/* Inside a container NVML lists host PIDs: ours is not among them. */
ST_TEST(cotenant_in_a_container_counts_busy_processes_beyond_ours)
{
  perf__cotenant s = fresh(100);
  perf__gpuwatch_proc procs[] = {{.pid = 7001}, {.pid = 7002}};
  /* one busy process: it may be us, so nothing is known to be foreign */
  perf__gpuwatch_util one[] = {{.pid = 7001, .ts = 5, .sm = 50}};
  perf__cotenant_fold(&s, procs, 2, one, 1, 10.0);
  ST_EQ(s.self_listed, 0);
  ST_EQ(s.nspans, 0);
  /* two busy: at least one is not us; neither can be named */
  perf__gpuwatch_util two[] = {{.pid = 7001, .ts = 6, .sm = 50}, {.pid = 7002, .ts = 6, .sm = 90}};
  perf__cotenant_fold(&s, procs, 2, two, 2, 10.2);
  ST_EQ(s.nspans, 1);
  ST_EQ(s.hidden, 1);
  ST_EQ(s.nprocs, 0);
  char who[240];
  ST_STR(perf__neighbour_describe(&s, 10.0, who, sizeof who),
         "1 process NVML lists by host PID (not nameable from this PID namespace)");
  /* A workload without a context of its own: every busy process is another. */
  perf__cotenant h = {.self = 100};
  perf__cotenant_fold(&h, procs, 2, one, 1, 10.0);
  ST_EQ(h.nspans, 1);
  ST_EQ(h.nprocs, 1);
}

ST_TEST(cotenant_without_per_process_utilisation_counts_context_holders)
{
  perf__cotenant s = fresh(100);
  perf__gpuwatch_proc alone[] = {{.pid = 100}};
  perf__cotenant_fold(&s, alone, 1, NULL, -1, 10.0);
  ST_EQ(s.per_process, 0);
  ST_EQ(s.nspans, 0);
  perf__gpuwatch_proc two[] = {{.pid = 100}, {.pid = 4000001}};
  perf__cotenant_fold(&s, two, 2, NULL, -1, 10.1);
  ST_EQ(s.nspans, 1); /* conservative: a context may be running kernels */
  char who[240];
  ST_STR(perf__neighbour_describe(&s, 0, who, sizeof who),
         "pid 4000001, SM share unknown (it holds a context; NVML gives no per-process "
         "utilisation)");
  /* in a container: listed - 1 others, not named */
  perf__cotenant c = fresh(100);
  perf__gpuwatch_proc hosts[] = {{.pid = 7001}, {.pid = 7002}, {.pid = 7003}};
  perf__cotenant_fold(&c, hosts, 3, NULL, -1, 10.0);
  ST_EQ(c.hidden, 2);
  ST_EQ(c.nspans, 1);
  /* no view at all: nothing is known, nothing counted */
  perf__cotenant n = fresh(100);
  int reads = n.reads;
  perf__cotenant_fold(&n, NULL, -1, NULL, -1, 10.0);
  ST_EQ(n.reads, reads);
  ST_EQ(n.nspans, 0);
}

ST_TEST(cotenant_shared_sample_is_retaken_while_the_wait_lasts_then_kept_and_counted)
{
  perf__retake r = {0};
  ST_EQ(perf__retake_shared(&r, 0, 1), PERF__KEEP);
  ST_EQ(perf__retake_shared(&r, 1, 1), PERF__RETAKE);
  ST_EQ(perf__retake_shared(&r, 1, 1), PERF__RETAKE);
  ST_EQ(perf__retake_shared(&r, 1, 0), PERF__KEEP); /* the wait is spent */
  ST_EQ(r.shared_retaken, 2);
  ST_EQ(r.shared_kept, 1);
  ST_EQ(r.retaken + r.throttled_discarded, 0);
  char buf[400];
  r.shared_waited_ms = 2000;
  perf__measrec_disturbed_text(&r, "", buf, sizeof buf);
  ST_STR(buf, "; 2 samples retaken and 1 kept while another process used the GPU (waited "
              "2.0 s for it to leave)");
  perf__measrec_disturbed_text(&(perf__retake){.shared_retaken = 1, .shared_waited_ms = 100},
                               "", buf, sizeof buf);
  ST_STR(buf, "; 1 sample retaken and 0 kept while another process used the GPU (waited 0.1 s "
              "for it to leave)");
}

/* 40 rounds, a 2x speedup of A over B; in rounds [from, to) a co-tenant's
 * kernels counted into A's samples: 4x as long. */
static void rounds(double *a, double *b, double *t0, double *t1, int from, int to)
{
  for (int i = 0; i < 40; i++) {
    a[i] = (i >= from && i < to ? 2.0 : 0.5) * (1.0 + 0.01 * (i % 7));
    b[i] = 1.0 + 0.01 * (i % 5);
    t0[i] = 100.0 + i;
    t1[i] = 100.5 + i;
  }
}

/* A co-tenant's span over [from, to] seconds. */
static perf__cotenant busy_between(double from, double to)
{
  perf__cotenant s = {.self = 1, .self_context = 1};
  s.spans[0].from = from;
  s.spans[0].to = to;
  s.nspans = 1;
  return s;
}

/* The rule the shared-round tests decide with: FASTER(a, b, 1.5), 2000
 * resamples, a fixed seed. */
static void decide_setup(perf__verdict_cfg *cfg, perf__verdict_claim *c, perf__rng *rng)
{
  perf__verdict_defaults(cfg);
  cfg->reps = 2000;
  *c = (perf__verdict_claim){PERF__CLAIM_FASTER, 1.5};
  perf__rng_seed(rng, 7);
}

ST_TEST(cotenant_shared_rounds_never_decide_a_claim)
{
  perf__verdict_cfg cfg;
  perf__verdict_claim c;
  perf__rng rng;
  decide_setup(&cfg, &c, &rng);
  double a[40], b[40], t0[40], t1[40];
  perf__verdict_result r = {.verdict = PERF_OUTCOME_FAIL, .level = 0.01};
  size_t n = 40;
  /* Rounds 0..9 shared (the span ends at 109.6: with the quiet margin up
   * to 110.1, round 10 starting at 110 is shared too): the other 29 decide. */
  rounds(a, b, t0, t1, 0, 10);
  perf__cotenant s = busy_between(90, 109.6);
  ST_EQ(perf__compare_unshared(&s, &c, &cfg, &rng, &(perf__compare_rounds){a, b, t0, t1, NULL, &n, 100, 140}, &r), 11);
  ST_EQ(n, 29);
  ST_EQ(r.rounds, 29);
  ST_EQ(r.verdict, PERF_OUTCOME_PASS);
  ST_CHECK(r.ratio > 1.9 && r.ratio < 2.1);
  ST_CHECK(r.lo >= 1.5);
  /* 38 of 40 shared: too few clean rounds to look at: INCONCLUSIVE, never
   * the FAIL the shared rounds showed. */
  rounds(a, b, t0, t1, 0, 40);
  n = 40;
  r = (perf__verdict_result){.verdict = PERF_OUTCOME_FAIL, .level = 0.01, .lo = 0.4, .hi = 0.6};
  perf__cotenant most = busy_between(90, 137.2);
  ST_EQ(perf__compare_unshared(&most, &c, &cfg, &rng, &(perf__compare_rounds){a, b, t0, t1, NULL, &n, 100, 140}, &r), 38);
  ST_EQ(n, 2);
  ST_EQ(r.verdict, PERF_OUTCOME_INCONCLUSIVE);
  ST_NEAR(r.lo, 0.4, 0); /* the line still shows what all rounds measured */
  /* Round times unknown (no memory): every round counts as shared. */
  n = 40;
  r = (perf__verdict_result){.verdict = PERF_OUTCOME_PASS, .level = 0.01};
  ST_EQ(perf__compare_unshared(&s, &c, &cfg, &rng, &(perf__compare_rounds){a, b, NULL, NULL, NULL, &n, 100, 140}, &r), 40);
  ST_EQ(r.verdict, PERF_OUTCOME_INCONCLUSIVE);
  /* No foreign use during sampling: nothing dropped, the verdict stands. */
  n = 40;
  r = (perf__verdict_result){.verdict = PERF_OUTCOME_FAIL, .level = 0.01};
  perf__cotenant before = busy_between(10, 20);
  ST_EQ(perf__compare_unshared(&before, &c, &cfg, &rng, &(perf__compare_rounds){a, b, t0, t1, NULL, &n, 100, 140}, &r), 0);
  ST_EQ(n, 40);
  ST_EQ(r.verdict, PERF_OUTCOME_FAIL);
}

/* The canary's rule: a round is clean when the empty kernel's turnaround
 * before and after it are both within the band of the process's lowest
 * reading (3x, at least 5 launch costs above it); an anchor that was never
 * at an idle GPU's pace (more than 15 launch costs: a neighbour that never
 * left room) or a missing reading judges nothing. The rule is in launch
 * costs, so a machine whose launch path is slower gets a wider band. The
 * H200's figures: launch 4.36 us, alone 14.6 us, beside a GEMM loop 388 us. */
ST_TEST(cotenant_canary_judges_a_round_by_both_turnarounds_against_a_quiet_anchor)
{
  double L = 4e-6, quiet = 14.6e-6, sliced = 388e-6;
  ST_EQ(perf__canary_judge(quiet, L, 15e-6, 22e-6), PERF__CANARY_CLEAN);
  ST_EQ(perf__canary_judge(quiet, L, 15e-6, sliced), PERF__CANARY_DISTURBED);
  ST_EQ(perf__canary_judge(quiet, L, sliced, 15e-6), PERF__CANARY_DISTURBED);
  ST_EQ(perf__canary_judge(quiet, L, 43.5e-6, 43e-6), PERF__CANARY_CLEAN); /* 3x: 43.8 us */
  ST_EQ(perf__canary_judge(quiet, L, 44e-6, 45e-6), PERF__CANARY_DISTURBED);
  ST_EQ(perf__canary_judge(5e-6, L, 24e-6, 24.9e-6), PERF__CANARY_CLEAN); /* + 5 launches: 25 us */
  ST_EQ(perf__canary_judge(5e-6, L, 24e-6, 26e-6), PERF__CANARY_DISTURBED);
  /* the lowest reading was itself a slice's wait: nothing is judged */
  ST_EQ(perf__canary_judge(sliced, L, sliced, sliced), PERF__CANARY_UNJUDGED);
  ST_EQ(perf__canary_judge(60.5e-6, L, 1e-4, 1e-4), PERF__CANARY_UNJUDGED); /* > 15 launches */
  ST_EQ(perf__canary_judge(59.5e-6, L, 1e-4, 1e-4), PERF__CANARY_CLEAN);
  /* a machine with a launch path 2.5x slower: the same turnarounds are quiet there */
  ST_EQ(perf__canary_judge(150e-6, 10e-6, 200e-6, 210e-6), PERF__CANARY_CLEAN);
  ST_EQ(perf__canary_judge(150e-6, 4e-6, 200e-6, 210e-6), PERF__CANARY_UNJUDGED);
  ST_EQ(perf__canary_judge(0, L, 15e-6, 15e-6), PERF__CANARY_UNJUDGED);
  ST_EQ(perf__canary_judge(quiet, 0, 15e-6, 15e-6), PERF__CANARY_UNJUDGED); /* no launch cost */
  ST_EQ(perf__canary_judge(quiet, L, 0, 15e-6), PERF__CANARY_UNJUDGED); /* no reading before */
}

/* The waking kernel comes only after a sample that queued no GPU work,
 * and only after a gap; its own wait is judged: a cold start (tens of
 * us on an H200) is not counted, a neighbour's slice (hundreds) stands
 * for the reading and the round is left out. */
ST_TEST(cotenant_canary_wakes_an_idle_gpu_and_still_sees_a_slice)
{
  const double gap = PERF__CANARY_COLD_S, anchor = 7.5e-6, launch = 4.36e-6;
  ST_EQ(perf__canary_wakes(1, 0, 5.0), 1); /* no reading yet */
  ST_EQ(perf__canary_wakes(1, 5.0, 5.0 + 2 * gap), 1);
  ST_EQ(perf__canary_wakes(1, 5.0, 5.0 + gap / 2), 0); /* read just now */
  ST_EQ(perf__canary_wakes(0, 5.0, 6.0), 0);           /* after a GPU sample: never */
  ST_EQ(perf__canary_wakes(0, 0, 6.0), 0);
  ST_CHECK(perf__canary_woken(60e-6, 9e-6, anchor, launch) == 9e-6);   /* a cold start */
  ST_CHECK(perf__canary_woken(400e-6, 9e-6, anchor, launch) == 400e-6); /* a slice */
  ST_CHECK(perf__canary_woken(0, 9e-6, anchor, launch) == 9e-6);       /* none taken */
  ST_CHECK(perf__canary_woken(400e-6, 9e-6, 0, launch) == 9e-6);       /* no anchor yet */
  ST_CHECK(perf__canary_woken(400e-6, 500e-6, anchor, launch) == 500e-6);
  ST_CHECK(perf__canary_woken(400e-6, 9e-6, anchor, 0) == 9e-6); /* no launch cost yet */
  /* the line lies between the slowest cold start seen (150 us) and a slice's 240 us */
  ST_CHECK(perf__canary_woken(150e-6, 9e-6, anchor, launch) == 9e-6);
  ST_CHECK(perf__canary_woken(240e-6, 9e-6, anchor, launch) == 240e-6);
  ST_EQ(perf__canary_judge(anchor, launch, 9e-6, perf__canary_woken(400e-6, 9e-6, anchor, launch)),
        PERF__CANARY_DISTURBED);
  ST_EQ(perf__canary_judge(anchor, launch, 9e-6, perf__canary_woken(60e-6, 9e-6, anchor, launch)),
        PERF__CANARY_CLEAN);
}

/* A round counts only inside a quiet stretch: 5 readings in a row within
 * the band over at least 25 ms. Quiet readings scattered among delayed
 * ones (a neighbour that slices in often: 1 in 4 quiet beside a GEMM loop
 * on the H200) never make one; a neighbour's off-phase does, after its
 * first rounds. */
ST_TEST(cotenant_canary_counts_rounds_only_inside_a_quiet_stretch)
{
  perf__canary_stretch s = {0};
  double t = 100;
  for (int i = 0; i < 4; i++) ST_EQ(perf__canary_step(&s, 1, t += 0.01), 0);
  ST_EQ(perf__canary_step(&s, 1, t += 0.01), 1); /* 5 over 40 ms */
  ST_CHECK(s.left_at == t);
  ST_EQ(perf__canary_step(&s, 1, t += 0.01), 1);
  ST_EQ(perf__canary_step(&s, 0, t += 0.01), 0); /* a delayed reading ends it */
  ST_EQ(s.n, 0);
  for (int i = 0; i < 4; i++) ST_EQ(perf__canary_step(&s, 1, t += 0.01), 0);
  /* fast rounds: 5 readings are not enough before 25 ms have passed */
  perf__canary_stretch f = {0};
  for (int i = 0; i < 25; i++) ST_EQ(perf__canary_step(&f, 1, 200 + 0.001 * i), 0);
  ST_EQ(perf__canary_step(&f, 1, 200.0255), 1);
  /* one quiet reading in four, never five in a row */
  perf__canary_stretch g = {0};
  int any = 0;
  for (int i = 0; i < 400; i++) any |= perf__canary_step(&g, i % 4 == 0, 300 + 0.008 * i);
  ST_EQ(any, 0);
  ST_EQ(g.left_at, 0);
}

/* It gives up on a claim whose rounds are mostly left out unless the
 * neighbour was seen to leave room: a quiet stretch within 2 s; with none
 * ever seen, the 0.8 s after the process's first judged round are a
 * trial. */
ST_TEST(cotenant_canary_gives_up_only_beside_a_neighbour_that_leaves_no_room)
{
  perf__canary_stretch none = {.first = 10};
  ST_EQ(perf__canary_trusted(0, 11, &none, 20), 1); /* the trial: 12 rounds */
  ST_EQ(perf__canary_trusted(90, 10, &none, 20), 1); /* at most 10 % left out */
  ST_EQ(perf__canary_trusted(0, 12, &none, 20), 0);
  ST_EQ(perf__canary_trusted(89, 11, &none, 20), 0);
  ST_EQ(perf__canary_trusted(4, 120, &none, 20), 0); /* 97 %: the H200 beside tiny kernels */
  ST_EQ(perf__canary_trusted(0, 12, &none, 10.7), 1); /* the process's first 0.8 s */
  ST_EQ(perf__canary_trusted(0, 12, &none, 10.9), 0);
  perf__canary_stretch left = {.first = 10, .left_at = 19};
  ST_EQ(perf__canary_trusted(40, 60, &left, 20.9), 1); /* it left 1.9 s ago */
  ST_EQ(perf__canary_trusted(40, 60, &left, 21.1), 0); /* and stayed since */
  ST_EQ(perf__canary_trusted(0, 12, &left, 19.5), 1);
}

/* Rounds the canary found clean stand though NVML marked them shared (its
 * spans cover a neighbour's off-phases too), except where the host link
 * showed another process's traffic: the canary does not see the link. */
ST_TEST(cotenant_rounds_the_canary_found_clean_stand_unless_the_link_was_shared)
{
  perf__verdict_cfg cfg;
  perf__verdict_claim c;
  perf__rng rng;
  decide_setup(&cfg, &c, &rng);
  double a[40], b[40], t0[40], t1[40], judged[40];
  /* every round shared per NVML; rounds 0..9 were slow (2.0 vs 0.5) */
  rounds(a, b, t0, t1, 0, 10);
  for (int i = 0; i < 40; i++) judged[i] = i >= 10; /* the canary kept 10..39 */
  perf__cotenant s = busy_between(90, 150);
  perf__verdict_result r = {.verdict = PERF_OUTCOME_FAIL, .level = 0.01};
  size_t n = 40;
  ST_EQ(perf__compare_unshared(&s, &c, &cfg, &rng, &(perf__compare_rounds){a, b, t0, t1, judged, &n, 100, 140}, &r), 10);
  ST_EQ(n, 30);
  ST_EQ(r.verdict, PERF_OUTCOME_PASS);
  ST_CHECK(r.lo >= 1.5);
  /* the same, but the link showed foreign traffic over rounds 10..19 */
  rounds(a, b, t0, t1, 10, 20);
  s.link_spans[0] = (perf__cotenant_span){110, 119.2};
  s.nlink_spans = 1;
  n = 40;
  r = (perf__verdict_result){.verdict = PERF_OUTCOME_FAIL, .level = 0.01};
  ST_EQ(perf__compare_unshared(&s, &c, &cfg, &rng, &(perf__compare_rounds){a, b, t0, t1, judged, &n, 100, 140}, &r), 20);
  ST_EQ(n, 20);
  ST_EQ(r.verdict, PERF_OUTCOME_PASS);
  /* a sample is shared through the link alone while a canary judges */
  ST_EQ(perf__cotenant_shares(&s, 130, 131), 1);
  s.canary = 1;
  ST_EQ(perf__cotenant_shares(&s, 130, 131), 0);
  ST_EQ(perf__cotenant_shares(&s, 112, 113), 1);
  /* the link's spans are exact to a GPM interval (0.1 s) and NVML's to
   * half a second: beside a neighbour that copies for 0.5 s and rests
   * for 0.5 s, a round in its rest stands on the link's word alone */
  ST_EQ(perf__cotenant_shares(&s, 119.25, 119.3), 1);
  ST_EQ(perf__cotenant_shares(&s, 119.4, 119.5), 0);
  perf__cotenant nvml = busy_between(110, 119.2);
  ST_EQ(perf__cotenant_overlaps(&nvml, 119.4, 119.5), 1);
  ST_EQ(perf__cotenant_overlaps(&nvml, 119.8, 119.9), 0);
  /* rounds the canary's link probe found clean too stand on its word:
   * GPM's spans are coarse (whole read intervals, reaching back one) */
  for (int i = 10; i < 20; i++) judged[i] = PERF__CANARY_CLEAN_LINK;
  n = 40;
  r = (perf__verdict_result){.verdict = PERF_OUTCOME_FAIL, .level = 0.01};
  ST_EQ(perf__compare_unshared(&s, &c, &cfg, &rng, &(perf__compare_rounds){a, b, t0, t1, judged, &n, 100, 140}, &r), 10);
  ST_EQ(n, 30);
  s.canary = 2; /* and no sample is retaken for the link while it judges */
  ST_EQ(perf__cotenant_shares(&s, 112, 113), 0);
}

/* The link probe's band is the kernel's rule over its own lowest reading,
 * trusted only when that reading is near a free link's pace (1 MiB at
 * 8 GB/s plus 15 launch costs): on the H200 28 us alone and 417 us beside
 * a process streaming pinned copies. */
ST_TEST(cotenant_canary_link_probe_band_over_a_free_links_reading)
{
  double L = 4e-6;
  ST_NEAR(perf__canary_link_band(28e-6, L), 84e-6, 1e-12); /* 3x */
  ST_NEAR(perf__canary_link_band(8e-6, L), 28e-6, 1e-12);  /* + 5 launches */
  ST_NEAR(perf__canary_link_band(100e-6, L), 300e-6, 1e-12); /* PCIe 3.0 x16: still trusted */
  ST_EQ(perf__canary_link_band(417e-6, L), 0); /* never seen free: not judged */
  ST_EQ(perf__canary_link_band(28e-6, 0), 0);
  ST_EQ(perf__canary_link_band(0, L), 0);
}

/* Which cause an undecided claim names once shared rounds were dropped: the
 * co-tenant when it changed the verdict, left too few rounds, or shared
 * most of them (on an H100 beside bench-noise's load, 118 of 141 rounds
 * shared were headed "time budget spent"); the claim's own reason when a
 * few shared rounds were dropped from a claim undecided without them. */
ST_TEST(cotenant_undecided_claim_names_the_co_tenant_that_shared_most_rounds)
{
  const char *co = "another process used the GPU";
  ST_STR(perf__compare_shared_why(PERF_OUTCOME_PASS, 40, 1, 12), co);
  ST_STR(perf__compare_shared_why(PERF_OUTCOME_FAIL, 40, 1, 12), co);
  ST_STR(perf__compare_shared_why(PERF_OUTCOME_INCONCLUSIVE, 40, 30, 12), co); /* 10 left */
  ST_STR(perf__compare_shared_why(PERF_OUTCOME_INCONCLUSIVE, 141, 118, 12), co);
  ST_STR(perf__compare_shared_why(PERF_OUTCOME_INCONCLUSIVE, 40, 20, 12), co); /* half */
  ST_CHECK(perf__compare_shared_why(PERF_OUTCOME_INCONCLUSIVE, 40, 19, 12) == NULL);
  ST_CHECK(perf__compare_shared_why(PERF_OUTCOME_INCONCLUSIVE, 141, 3, 12) == NULL);
}

/* Opens the stand-in NVML lib (under the build directory). */
static int open_fake(const char *lib)
{
  char path[600], why[200];
  snprintf(path, sizeof path, "%s/%s", st_build_dir(), lib);
  setenv("PERF_NVML_LIB", path, 1);
  perf__gpuwatch_close();
  perf__cotenant_reset();
  return perf__gpuwatch_open("0000:00:06.0", why, sizeof why);
}

ST_TEST(cotenant_nvml_process_view_through_the_stand_in)
{
  setenv("FAKE_NVML_PROCS", "self:40,4000002:97", 1);
  setenv("FAKE_NVML_LEAVE_AFTER", "2", 1);
  ST_EQ(open_fake("libfakenvml.so"), 0);
  perf__gpuwatch_proc p[8];
  unsigned n = 0;
  ST_EQ(perf__gpuwatch_processes(p, 8, &n), 0);
  ST_EQ(n, 2);
  ST_EQ(p[0].pid, (unsigned)getpid());
  ST_EQ(p[1].pid, 4000002);
  ST_EQ(perf__gpuwatch_processes(p, 1, &n), -1); /* more than fit */
  /* Two reads see the other process, then it has left. */
  ST_EQ(perf__cotenant_poll(1), 1);
  const perf__cotenant *s = perf__cotenant_state();
  ST_EQ(s->self_listed, 1);
  ST_EQ(s->nprocs, 1);
  ST_EQ(s->procs[0].pid, 4000002);
  ST_EQ(s->procs[0].sm, 97);
  ST_EQ(s->nspans, 1);
  double now = perf__clock_now();
  ST_EQ(perf__cotenant_overlaps(s, now - 0.01, now), 1);
  ST_EQ(perf__cotenant_poll(1), 1);
  double end = s->spans[0].to;
  ST_EQ(perf__cotenant_poll(1), 1);
  ST_EQ(perf__cotenant_poll(1), 1);
  ST_NEAR(s->spans[0].to, end, 0); /* gone: the span ends where it was last seen */
  ST_EQ(s->nspans, 1);
  /* Rate limit: an unforced poll right after a read does not read again. */
  long reads0, reads1;
  double sec;
  perf__cotenant_cost(&reads0, &sec);
  perf__cotenant_poll(0);
  perf__cotenant_cost(&reads1, &sec);
  ST_EQ(reads1, reads0);
  /* Our pid hidden (a container): two busy processes, one may be us. */
  setenv("FAKE_NVML_HIDE_SELF", "1", 1);
  unsetenv("FAKE_NVML_LEAVE_AFTER");
  ST_EQ(open_fake("libfakenvml.so"), 0);
  ST_EQ(perf__cotenant_poll(1), 1);
  ST_EQ(s->self_listed, 0);
  ST_EQ(s->hidden, 1);
  ST_EQ(s->nprocs, 0);
  /* No per-process utilisation: the context holder counts. */
  unsetenv("FAKE_NVML_HIDE_SELF");
  setenv("FAKE_NVML_PROC_UTIL", "unsupported", 1);
  ST_EQ(open_fake("libfakenvml.so"), 0);
  ST_EQ(perf__cotenant_poll(1), 1);
  ST_EQ(s->per_process, 0);
  ST_EQ(s->nprocs, 1);
  ST_EQ(s->procs[0].sm, 0);
  unsetenv("FAKE_NVML_PROC_UTIL");
  /* A process NVML does not list: the device's samples show it. */
  setenv("FAKE_NVML_PROCS", "self:30", 1);
  setenv("FAKE_NVML_UNLISTED", "60", 1);
  ST_EQ(open_fake("libfakenvml.so"), 0);
  perf__gpuwatch_busy d[4];
  ST_EQ(perf__gpuwatch_device_util(d, 4, &n, 0), 0);
  ST_CHECK(n == 4 && d[0].pct == 90 && d[3].ts > d[0].ts);
  ST_EQ(perf__gpuwatch_device_util(d, 4, &n, d[3].ts + 10000000ull), 0); /* none newer */
  ST_EQ(n, 0);
  /* a driver keeping more windows than the first read's buffer: read whole */
  setenv("FAKE_NVML_WINDOWS", "300", 1);
  ST_EQ(perf__gpuwatch_device_util(d, 4, &n, 0), 0);
  ST_CHECK(n == 4 && d[0].pct == 90 && d[3].ts > d[0].ts);
  unsetenv("FAKE_NVML_WINDOWS");
  perf__cotenant_reset();
  for (int i = 0; i < 3; i++) {
    ST_EQ(perf__cotenant_poll(1), 1);
    struct timespec pause = {0, 60000000};
    nanosleep(&pause, NULL); /* the stand-in's next window (50 ms) */
  }
  ST_EQ(s->nprocs, 0);
  ST_CHECKF(s->unlisted >= 60, "%u", s->unlisted); /* 90 when a window's own samples were missed */
  ST_EQ(s->nspans, 1);
  setenv("FAKE_NVML_DEVICE_UTIL", "unsupported", 1);
  ST_EQ(open_fake("libfakenvml.so"), 0);
  ST_EQ(perf__gpuwatch_device_util(d, 4, &n, 0), -1);
  unsetenv("FAKE_NVML_DEVICE_UTIL");
  unsetenv("FAKE_NVML_UNLISTED");
  unsetenv("FAKE_NVML_PROCS");
  perf__gpuwatch_close();
}

/* A state for pid self that NVML lists, at the link's base at 10 s. */
static perf__cotenant linked(unsigned self)
{
  perf__cotenant s = fresh(self);
  s.self_listed = 1;
  s.link_from = 10.0;
  return s;
}

/* A neighbour that only copies (the H200: NVML names us for every window
 * of our claim while its copies run beside ours): the device's link bytes
 * beyond our own copies' mark the interval as foreign while another
 * process holds a context, and name it with the traffic; with no other
 * process the traffic is ours (mapped memory the trace does not count). */
ST_TEST(cotenant_link_traffic_beyond_ours_marks_the_interval_and_names_the_holder)
{
  perf__cotenant s = linked(100);
  perf__gpuwatch_proc procs[] = {{.pid = 100}, {.pid = 4000007}};
  /* 50 GB/s to the device for 0.2 s, none of it ours */
  perf__cotenant_fold_link(&s, procs, 2, 50e9, 4e9, 10.2);
  ST_EQ(s.nspans, 1);
  ST_NEAR(s.spans[0].from, 10.0, 1e-12);
  ST_NEAR(s.spans[0].to, 10.2, 1e-12);
  ST_NEAR(s.link_from, 10.2, 1e-12); /* the next interval starts here */
  char who[240];
  ST_STR(perf__neighbour_describe(&s, 10.0, who, sizeof who),
         "pid 4000007, 54.0 GB/s of host-to-device traffic not ours (GPM)");
  /* Our own copies account for the bytes (with the link's requests the
   * other way): nothing marked. */
  perf__cotenant q = linked(100);
  q.own_down = 1e9, q.own_up = 0;      /* 5 GB/s of ours for 0.2 s */
  perf__cotenant_fold_link(&q, procs, 2, 5.0e9, 0.45e9, 10.2);
  ST_EQ(q.nspans, 0);
  ST_CHECK(q.own_down == 0 && q.own_up == 0); /* counted afresh */
  /* ours plus 10 GB/s to the host that is not: marked, named that way */
  q.own_down = 1e9;
  perf__cotenant_fold_link(&q, procs, 2, 5.4e9, 10e9, 10.4);
  ST_EQ(q.nspans, 1);
  ST_STR(perf__neighbour_describe(&q, 10.2, who, sizeof who),
         "pid 4000007, 10.4 GB/s of device-to-host traffic not ours (GPM)");
  /* GPM's samples trail (the H200's sine sweep beside an idle context):
   * our 8.2 GB/s shown as 1.4, 7.2, 8.6, 9.5 GB/s, then 6.5 GB/s in the
   * interval after our copies ended. Nothing is foreign; a neighbour's 20
   * GB/s after it is, and nothing once it left. */
  perf__cotenant t = linked(100);
  const double shown[] = {1.4e9, 7.2e9, 8.6e9, 9.5e9, 6.5e9}, ours[] = {8.2e9, 8.2e9, 8.2e9, 8.2e9, 0};
  for (int i = 0; i < 5; i++) {
    t.own_down = ours[i] * 0.17;
    perf__cotenant_fold_link(&t, procs, 2, shown[i], 0, t.link_from + 0.17);
  }
  ST_EQ(t.nspans, 0);
  perf__cotenant_fold_link(&t, procs, 2, 20e9, 0, t.link_from + 0.17);
  ST_EQ(t.nspans, 1);
  perf__cotenant_fold_link(&t, procs, 2, 0.02e9, 0, t.link_from + 0.17);
  t.own_down = 8.2e9 * 0.17;
  perf__cotenant_fold_link(&t, procs, 2, 8.2e9, 0, t.link_from + 0.17);
  ST_EQ(t.nspans, 1);
  /* However long we copied alone first (50 GB/s for 10 s, the device
   * showing 1.09x our bytes), a neighbour is seen within a few intervals
   * (we drop to 28 GB/s, the device moves 56: its bytes and our trailing
   * ones look alike at first), and the span reaches back to its arrival
   * and the interval before it. */
  perf__cotenant l = linked(100);
  for (int i = 0; i < 60; i++) {
    l.own_down = 50e9 * 0.17;
    perf__cotenant_fold_link(&l, procs, 2, 1.09 * 50e9, 0, l.link_from + 0.17);
  }
  ST_EQ(l.nspans, 0);
  double arrived = l.link_from;
  for (int i = 0; i < 4 && !l.nspans; i++) {
    l.own_down = 28e9 * 0.17;
    perf__cotenant_fold_link(&l, procs, 2, 56e9, 0, l.link_from + 0.17);
  }
  ST_EQ(l.nspans, 1);
  ST_NEAR(l.spans[0].from, arrived - 0.17, 1e-9); /* an interval before: GPM trails */
  /* Below the floor: quiet traffic of a second (12-19 MB/s) */
  perf__cotenant r = linked(100);
  perf__cotenant_fold_link(&r, procs, 2, 0.5e9, 0.3e9, 11.0);
  ST_EQ(r.nspans, 0);
  /* No other process holds a context: the traffic is ours. */
  perf__gpuwatch_proc just_ours[] = {{.pid = 100}};
  perf__cotenant_fold_link(&r, just_ours, 1, 50e9, 4e9, 11.2);
  ST_EQ(r.nspans, 0);
  ST_STR(perf__neighbour_describe(&r, 0, who, sizeof who), "");
  /* Several other processes: which one moved it cannot be told. */
  perf__cotenant g = linked(100);
  perf__gpuwatch_proc three[] = {{.pid = 100}, {.pid = 4000007}, {.pid = 4000008}};
  perf__cotenant_fold_link(&g, three, 3, 50e9, 4e9, 10.2);
  ST_EQ(g.nspans, 1);
  ST_STR(perf__neighbour_describe(&g, 10.0, who, sizeof who),
         "54.0 GB/s of host-to-device traffic not ours (GPM), from one of 2 other processes "
         "holding a context");
  /* A container (NVML lists host PIDs): the other entry counts, unnamed. */
  perf__cotenant h = {.self = 100, .self_context = 1, .link_from = 10.0};
  perf__gpuwatch_proc host_pids[] = {{.pid = 7100}, {.pid = 7200}};
  perf__cotenant_fold_link(&h, host_pids, 2, 50e9, 4e9, 10.2);
  ST_EQ(h.nspans, 1);
  ST_STR(perf__neighbour_describe(&h, 10.0, who, sizeof who),
         "1 process NVML lists by host PID (not nameable from this PID namespace), with "
         "54.0 GB/s of host-to-device traffic not ours (GPM)");
  /* an SM co-tenant that also copies: both said */
  perf__cotenant b = linked(100);
  perf__gpuwatch_util util[] = {{.pid = 4000007, .ts = 7, .sm = 40}};
  perf__cotenant_fold(&b, procs, 2, util, 1, 10.0);
  b.link_from = 10.0;
  perf__cotenant_fold_link(&b, procs, 2, 20e9, 1e9, 10.2);
  ST_STR(perf__neighbour_describe(&b, 10.0, who, sizeof who),
         "pid 4000007, 40 % SM, 21.0 GB/s of host-to-device traffic not ours (GPM)");
}

/* The link through the stand-in's GPM: the co-tenant poll reads it only
 * while a copying workload is measured beside another context; alone,
 * every byte is ours and nothing is read; a neighbour that appears takes
 * a new base (our bytes just before it allowed for), and a forced read
 * judges at once, from the read before it appeared; the base stands
 * across claims; where GPM cannot be read, it is not asked again. */
ST_TEST(cotenant_link_read_through_the_stand_in_gpm)
{
  setenv("FAKE_NVML_PROCS", "self:30", 1);
  setenv("FAKE_NVML_GPM_RX", "40000", 1);
  ST_EQ(open_fake("libfakenvml.so"), 0);
  double down = -1, up = -1;
  ST_EQ(perf__gpuwatch_link_rates(&down, &up, 0), -1); /* no base */
  ST_EQ(perf__gpuwatch_link_begin(), 0);
  ST_EQ(perf__gpuwatch_link_rates(&down, &up, 1), 0); /* waits out GPM's interval */
  ST_NEAR(down, 40000 * 1048576.0, 1);
  ST_NEAR(up, 15 * 1048576.0, 1);
  const perf__cotenant *s = perf__cotenant_state();
  ST_EQ(perf__cotenant_poll(1), 1); /* not watching the link: no span */
  ST_EQ(s->nspans, 0);
  /* alone: our bytes are ours; nothing is judged */
  perf__cotenant_link_watch(0);
  perf__cotenant_link_own(8e9, 0);
  ST_EQ(perf__cotenant_poll(1), 1);
  ST_EQ(s->nspans, 0);
  ST_CHECK(s->link_stale && s->own_down == 0 && s->link_prev_own == 8e9);
  double before = s->last_read;
  /* a neighbour appears (the stand-in's rate is more than any link moves,
   * so that no allowance hides it): a forced read takes the base, waits
   * GPM's interval, and judges at once, from the read before it appeared */
  setenv("FAKE_NVML_PROCS", "self:30,4000008:0", 1);
  setenv("FAKE_NVML_GPM_RX", "400000", 1);
  perf__cotenant_link_watch(0.5e9);
  ST_EQ(perf__cotenant_poll(1), 1);
  ST_EQ(s->link_stale, 0);
  ST_EQ(s->nspans, 1);
  ST_NEAR(s->spans[0].from, before, 1e-12);
  ST_EQ(s->nprocs, 1);
  ST_CHECK(s->procs[0].pid == 4000008 && s->procs[0].link > 400e9);
  /* the base stands across the test's claims: a later watch keeps it */
  double base = s->link_from;
  perf__cotenant_link_watch(1e9);
  ST_CHECK(s->link_from == base && !s->link_stale);
  /* the test's end forgets the traffic it saw */
  perf__cotenant_link_end();
  ST_CHECK(s->procs[0].link == 0 && s->link == 0);
  ST_EQ(s->link_on, 0);
  setenv("FAKE_NVML_GPM", "unsupported", 1);
  ST_EQ(open_fake("libfakenvml.so"), 0);
  ST_EQ(perf__gpuwatch_link_begin(), -1);
  perf__cotenant_link_watch(0);
  ST_EQ(perf__cotenant_poll(1), 1);
  ST_EQ(perf__cotenant_state()->link_on, -1); /* not asked again in this process */
  unsetenv("FAKE_NVML_GPM");
  unsetenv("FAKE_NVML_GPM_RX");
  unsetenv("FAKE_NVML_PROCS");
  perf__gpuwatch_close();
  perf__cotenant_reset();
}

ST_TEST(cotenant_an_older_nvml_keeps_the_rest_of_the_watch)
{
  ST_EQ(open_fake("libfakenvml-old.so"), 0);
  unsigned cur = 0, n = 9;
  ST_EQ(perf__gpuwatch_sm_clock(&cur, NULL), 0);
  perf__gpuwatch_proc p[4];
  perf__gpuwatch_util u[4];
  ST_EQ(perf__gpuwatch_processes(p, 4, &n), -1);
  ST_EQ(n, 0);
  ST_EQ(perf__gpuwatch_process_util(u, 4, &n, 0), -1);
  ST_EQ(perf__cotenant_poll(1), 0); /* nothing known */
  ST_EQ(perf__cotenant_state()->nspans, 0);
  perf__gpuwatch_close();
}

/* Runs the fixture's gpu.events_clock_sees_4x_bytes (args before the
 * filter) under the stand-in NVML with these FAKE_NVML_ settings. Returns
 * 1 on a machine with a GPU; 0 without one, after checking that it was
 * skipped (the watch opens by the CUDA device's bus id) and freeing r.
 * The stand-in shows neighbours the GPU does not have, which the canary
 * would find absent (canary.h): it is off unless fake sets PERF_CANARY. */
static int run_test(st_run *r, const char *test, const char *fake, const char *args)
{
  char env[800], all[600];
  snprintf(env, sizeof env, "PERF_NVML_LIB=%.400s/libfakenvml.so %s%s ", st_build_dir(),
           strstr(fake, "PERF_CANARY=") ? "" : "PERF_CANARY=0 ", fake);
  snprintf(all, sizeof all, "--verbose %s --filter='%s'", args, test);
  st_exec(r, env, all);
  if (st_have_gpu()) return 1;
  st_expect(r, test, "SKIP", "skipped: no CUDA device (");
  st_run_free(r);
  return 0;
}

static int run_shared(st_run *r, const char *fake, const char *args)
{
  return run_test(r, "gpu.events_clock_sees_4x_bytes", fake, args);
}

/* The fixture under a stand-in NVML that shows another process at 97 % SM
 * for the whole run: the claim's rounds are all shared, so it is
 * INCONCLUSIVE naming the process, never a PASS or FAIL; the same process
 * makes --update-baselines refuse to record. */
ST_TEST(cotenant_fixture_claim_under_a_co_tenant_is_inconclusive_naming_it)
{
  st_run r;
  char line[1200], dir[] = "/tmp/perfgate-cotenant-XXXXXX", args[400];
  const char *fake = "FAKE_NVML_PROCS=self:30,4000003:97";
  if (!run_shared(&r, fake, "")) return;
  st_expect(&r, "gpu.events_clock_sees_4x_bytes", "FAIL", ": INCONCLUSIVE"); /* never PASS */
  ST_CHECK(st_line_with(&r, "another process is using the GPU (pid 4000003, 97 % SM)",
                        "waiting up to 2.0 s in this test", line, sizeof line));
  ST_CHECK(st_line_with(&r, "FASTER(q, a, 2)", "INCONCLUSIVE (another process used the GPU)",
                        line, sizeof line));
  ST_CHECK(st_line_with(&r, "FASTER(q, a, 2)", "rounds: pid 4000003, 97 % SM; retaken for up "
                        "to 2.0 s", line, sizeof line));
  /* every round shared once the wait was spent: sampling stopped, and no
   * second attempt beside the same neighbour */
  ST_CHECK(st_line_with(&r, "FASTER(q, a, 2)", "then stopped: every round was shared: run on a "
                        "GPU no other job shares", line, sizeof line));
  ST_CHECK(st_line_with(&r, "confirmed: not run again: another process shared the GPU through "
                        "the undecided claim", NULL, line, sizeof line));
  st_run_free(&r);
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(args, sizeof args, "--update-baselines --baseline-dir=%s", dir);
  if (!run_shared(&r, fake, args)) return;
  ST_CHECK(r.status != 0);
  ST_CHECK(st_line_with(&r, "--update-baselines records nothing from a shared GPU",
                        "pid 4000003, 97 % SM", line, sizeof line));
  st_run_free(&r);
  st_rmtree(dir);
}

/* The same stand-in neighbour at 97 % SM with the canary on: the GPU has
 * no other context, so the empty kernel's turnaround stays at an idle
 * GPU's pace, every round is judged clean, and the claim is decided on
 * them, saying so; nothing waits for the neighbour to leave. */
ST_TEST(cotenant_fixture_claim_beside_a_listed_neighbour_that_never_delays_us_is_decided)
{
  st_run r;
  char line[1200];
  if (!run_shared(&r, "PERF_CANARY=1 FAKE_NVML_PROCS=self:30,4000003:97", "")) return;
  st_expect(&r, "gpu.events_clock_sees_4x_bytes", "PASS", NULL);
  const char *said = st_line_with(&r, "FASTER(q, a, 2)", "the canary left out ", line, sizeof line);
  ST_CHECK(said != NULL);
  /* the claim stood on rounds the canary kept: "left out N of M", N < M */
  long out = 0, of = 0;
  if (said) sscanf(strstr(line, "the canary left out "), "the canary left out %ld of %ld", &out, &of);
  ST_CHECKF(of > 0 && out < of, "%s", line);
  ST_CHECK(!st_line_with(&r, "waiting up to 2.0 s", NULL, line, sizeof line));
  st_run_free(&r);
}

/* The same stand-in neighbour, and a claim whose other side is 20 ms of
 * host work: the GPU idles through it, and its first kernel after is late
 * (an H200: 45-60 us against a 7.5 us floor, over the band). The canary
 * wakes the GPU before such a reading, so the rounds are judged clean and
 * the claim is decided; read cold, every round was left out. */
ST_TEST(cotenant_fixture_claim_against_host_work_beside_a_listed_neighbour_is_decided)
{
  st_run r;
  char line[1200];
  if (!run_test(&r, "gpucold.memset_beats_host_work",
                "PERF_CANARY=1 FAKE_NVML_PROCS=self:30,4000003:97", ""))
    return;
  st_expect(&r, "gpucold.memset_beats_host_work", "PASS", NULL);
  ST_CHECK(st_line_with(&r, "FASTER(g, h, 2)", "the canary left out ", line, sizeof line));
  st_run_free(&r);
}

/* A driver that names one process per window, ours while we run (an
 * H200's): the co-tenant is named in the first read only, and held busy
 * after it, so the claim is INCONCLUSIVE naming it, never decided beside
 * it. (Runs on a GPU only; a device with no NVML of its own uses the
 * stand-in all the same.) */
ST_TEST(cotenant_fixture_claim_beside_a_co_tenant_nvml_names_once_is_inconclusive)
{
  st_run r;
  char line[1200];
  if (!run_shared(&r, "FAKE_NVML_PROCS=self:99,4000005:40 FAKE_NVML_ONE_PER_WINDOW=1", ""))
    return;
  st_expect(&r, "gpu.events_clock_sees_4x_bytes", "FAIL", ": INCONCLUSIVE"); /* never PASS */
  ST_CHECK(st_line_with(&r, "FASTER(q, a, 2)", "INCONCLUSIVE (another process used the GPU)",
                        line, sizeof line));
  ST_CHECK(st_line_with(&r, "FASTER(q, a, 2)", "pid 4000005, 40 % SM", line, sizeof line));
  st_run_free(&r);
}

/* A co-tenant NVML does not list (its GPU time shows in the device's
 * utilisation only): the claim is INCONCLUSIVE saying so, never decided. */
ST_TEST(cotenant_fixture_claim_under_an_unlisted_co_tenant_is_inconclusive)
{
  st_run r;
  char line[1200];
  if (!run_shared(&r, "FAKE_NVML_PROCS=self:30 FAKE_NVML_UNLISTED=60", "")) return;
  st_expect(&r, "gpu.events_clock_sees_4x_bytes", "FAIL", ": INCONCLUSIVE"); /* never PASS */
  ST_CHECK(st_line_with(&r, "FASTER(q, a, 2)", "INCONCLUSIVE (another process used the GPU)",
                        line, sizeof line));
  ST_CHECK(st_line_with(&r, "FASTER(q, a, 2)", "GPU time no process NVML lists accounts for (up "
                        "to 60 % of a window)", line, sizeof line));
  st_run_free(&r);
}

/* A co-tenant that leaves after two NVML reads: its samples are retaken
 * after it left, and the claim is decided on unshared rounds. */
ST_TEST(cotenant_fixture_claim_decided_after_the_co_tenant_leaves)
{
  st_run r;
  char line[1200];
  if (!run_shared(&r, "FAKE_NVML_PROCS=self:30,4000004:60 FAKE_NVML_LEAVE_AFTER=2", "")) return;
  st_expect(&r, "gpu.events_clock_sees_4x_bytes", "PASS", NULL);
  ST_CHECK(st_line_with(&r, "another process is using the GPU (pid 4000004, 60 % SM)", NULL,
                        line, sizeof line));
  ST_CHECK(!st_line_with(&r, "FASTER(q, a, 2)", "another process used the GPU during", line,
                         sizeof line));
  st_run_free(&r);
}

/* Checks that r's verdict line of claim (its head) is INCONCLUSIVE naming
 * the stand-in copier pid (its "pid N, " words) and its traffic. */
static void names_the_copier(st_run *r, const char *claim, const char *pid)
{
  char line[1200];
  ST_CHECK(st_line_with(r, claim, "INCONCLUSIVE (another process used the GPU)", line,
                        sizeof line));
  ST_CHECK(st_line_with(r, claim, pid, line, sizeof line));
  ST_CHECK(st_line_with(r, claim, " GB/s of host-to-device traffic not ours (GPM)", line,
                        sizeof line));
}

/* A neighbour that only copies: NVML's utilisation does not name it (0 %
 * here), but the device's link traffic beyond the claim's own copies does
 * (the stand-in's GPM reports 300 000 MiB/s, more than any link moves, so
 * that our own copies can never account for it). Beside it the claim is
 * INCONCLUSIVE naming it and its traffic; the same traffic with no other
 * process on the GPU is ours, and the claim is decided. */
ST_TEST(cotenant_fixture_claim_beside_a_copy_only_neighbour_is_inconclusive_naming_it)
{
  st_run r;
  char line[1200];
  const char *test = "gpu.pinned_copies_see_4x_bytes";
  if (!run_test(&r, test, "FAKE_NVML_PROCS=self:30,4000009:0 FAKE_NVML_GPM_RX=300000", ""))
    return;
  st_expect(&r, test, "FAIL", ": INCONCLUSIVE"); /* never PASS */
  names_the_copier(&r, "FASTER(q, a, 2)", "pid 4000009, ");
  st_run_free(&r);
  if (!run_test(&r, test, "FAKE_NVML_PROCS=self:30 FAKE_NVML_GPM_RX=300000", "")) return;
  st_expect(&r, test, "PASS", NULL);
  ST_CHECK(!st_line_with(&r, "FASTER(q, a, 2)", "another process", line, sizeof line));
  st_run_free(&r);
}

/* A BASELINE of a workload that does not copy, beside a neighbour that
 * only copies: its median crosses runs, and another process's copies take
 * DRAM bandwidth it shares, so the link's foreign traffic marks its
 * samples all the same: INCONCLUSIVE naming the traffic, and
 * --update-baselines records nothing; alone it is decided. A ratio claim
 * of two such workloads is not held up by the link (both sides share the
 * cost), unless --baseline-check=all compares its medians across runs
 * too. */
ST_TEST(cotenant_fixture_baseline_beside_a_copy_only_neighbour_is_inconclusive_naming_it)
{
  st_run r;
  char line[1200], dir[] = "/tmp/perfgate-cotenant-XXXXXX", args[400];
  const char *copier = "FAKE_NVML_PROCS=self:30,4000010:0 FAKE_NVML_GPM_RX=300000";
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(args, sizeof args, "--update-baselines --baseline-dir=%s", dir);
  if (!run_test(&r, "blgpu.memset", copier, args)) {
    st_rmtree(dir);
    return;
  }
  ST_CHECK(r.status != 0);
  ST_CHECK(st_line_with(&r, "--update-baselines records nothing from a shared GPU",
                        " GB/s of host-to-device traffic not ours (GPM)", line, sizeof line));
  st_run_free(&r);
  ST_EQ(run_test(&r, "blgpu.memset", "FAKE_NVML_PROCS=self:30", args), 1); /* alone */
  ST_EQ(r.status, 0);
  st_run_free(&r);
  snprintf(args, sizeof args, "--baseline-dir=%s", dir);
  ST_EQ(run_test(&r, "blgpu.memset", copier, args), 1);
  st_expect(&r, "blgpu.memset", "FAIL", ": INCONCLUSIVE"); /* never PASS or REGRESSED */
  names_the_copier(&r, "BASELINE(m)", "pid 4000010, ");
  /* the copier was there as the check ended: no second attempt beside it */
  ST_CHECK(st_line_with(&r, "BASELINE(m)", PERF__CONFIRM_STILL_SHARED, line, sizeof line));
  ST_CHECK(st_line_with(&r, "confirmed: not run again", NULL, line, sizeof line));
  st_run_free(&r);
  ST_EQ(run_shared(&r, copier, ""), 1);
  st_expect(&r, "gpu.events_clock_sees_4x_bytes", "PASS", NULL);
  st_run_free(&r);
  /* --baseline-check=all compares every measured workload across runs:
   * the link marks the ratio claim's samples too, and nothing is said
   * REGRESSED or decided on them */
  snprintf(args, sizeof args, "--baseline-dir=%s --baseline-check=all", dir);
  ST_EQ(run_shared(&r, copier, args), 1);
  ST_CHECK(!st_line_with(&r, "REGRESSED", NULL, line, sizeof line));
  ST_CHECK(st_line_with(&r, "FASTER(q, a, 2)", "INCONCLUSIVE (another process used the GPU)",
                        line, sizeof line));
  st_run_free(&r);
  st_rmtree(dir);
}

/* Beside a process that copies without pause the canary finds every round
 * clean and the link drops each at the look: once the test's wait is
 * spent, a look's worth dropped with none standing over 1 s stops the
 * claim, not its whole budget; a round that stood, or less time, or the
 * wait not yet spent, keeps it sampling. */
ST_TEST(cotenant_claim_whose_every_round_the_link_dropped_stops_after_a_second)
{
  ST_EQ(perf__compare_link_hopeless(1, 12, 0, 12, 1.0), 1);
  ST_EQ(perf__compare_link_hopeless(1, 480, 0, 12, 2.0), 1);
  ST_EQ(perf__compare_link_hopeless(0, 480, 0, 12, 2.0), 0); /* the wait not spent */
  ST_EQ(perf__compare_link_hopeless(1, 11, 0, 12, 2.0), 0);  /* less than a look dropped */
  ST_EQ(perf__compare_link_hopeless(1, 480, 3, 12, 2.0), 0); /* rounds stand: it comes and goes */
  ST_EQ(perf__compare_link_hopeless(1, 480, 0, 12, 0.9), 0);
}
