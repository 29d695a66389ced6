/* canary.h — a ratio claim's rounds beside a GPU co-tenant, each judged by a canary. */
/* The canary is an empty kernel (and a pinned copy, for claims that copy). */
#ifndef PERF_CANARY_H
#define PERF_CANARY_H

#include "worker/sample/reference.h"

/* NVML tells late and coarsely that another process used the GPU (1/6 s
 * windows, reported after they close; worker/device/cotenant.h): a
 * neighbour that comes and goes marks every round of a claim, though many
 * ran while it was away. So while NVML shows another process in the test,
 * the claim reads a canary after each round (and once before the first):
 * the turnaround of an empty kernel on a stream of its own, host-timed
 * from its launch to the return of the wait for it
 * (perf__reference_turnaround). Another context holding the GPU delays it
 * by the rest of that context's time slice. On an H200 (2026-11-29, 5 s
 * per condition, rounds of four 2 ms kernels): alone 14.6 us median, 22.8
 * us p99; beside a GEMM loop or a stream of tiny kernels in another
 * process 388-414 us in 61-79 % of the rounds and quiet-like in the rest.
 *
 * The rule (perf__canary_judge) is in units of the machine's own launch
 * path, not one card's microseconds: the launch cost is the lowest reading
 * of perfgate's launch reference (host time to queue an empty kernel,
 * which another context's slice does not delay: the queueing is the
 * host's) this process took, and the anchor the lowest turnaround. The
 * anchor is trusted only when it is at most PERF__CANARY_QUIET_LAUNCHES
 * launch costs: the process has seen the GPU answer at an idle GPU's pace
 * at least once; a neighbour that never left room never lets that happen,
 * and its rounds are left to NVML's rule (not judged). A round is clean
 * when the readings before and after it are both within the band,
 * max(PERF__CANARY_FACTOR x anchor, anchor + PERF__CANARY_SLACK_LAUNCHES
 * launch costs); otherwise it is disturbed and not used. On the H200
 * (launch reference 4.36 us in its baseline file) the quiet turnaround is
 * 3.3 launch costs (p99 5.2), a slice's wait 89: the ceiling is 65 us and
 * the slack 22 us there. No other model's turnaround is measured yet.
 *
 * A reading is host-timed, so a reading during which the host took the
 * thread off its CPU (getrusage's involuntary switches of the thread) says
 * nothing of the GPU and is taken again, up to PERF__CANARY_RETAKES times.
 *
 * A GPU that idled answers its first kernel late. On an H200 (2026-11-30,
 * alone, 60 gaps each; the floor 7.5 us): after 20 ms in which the host
 * slept, spun or ran 16 OpenMP threads, the first turnaround took 45-60
 * us at the median, over 3x the floor in 78-98 % of the gaps (after 5 ms:
 * 11-60 %); the second, right after it, 9-12 us, never over 3x. So every
 * reading of a claim whose other side is a CPU workload was above the
 * band beside a neighbour that came and went (issue 50), and such claims
 * stayed undecided. Hence a reading after a sample that queued no GPU work
 * (the caller sets idled; perf__canary_wakes), more than
 * PERF__CANARY_COLD_S after the canary's last one, is preceded by an empty
 * kernel: a waking kernel. Only there: with one before every reading
 * (H200, 2026-11-30) the canary found quiet stretches beside a GEMM loop
 * that never left, where it had found none (10 ratio claims were decided
 * on them, right; a BASELINE judged the same way said REGRESSED at +12.6
 * %): the waking kernel waits out the neighbour's slice, and the judged
 * one can run inside the time slice the GPU then gives this process. So
 * the waking kernel is judged too (perf__canary_woken): a wait past
 * PERF__CANARY_WAKE_LAUNCHES launch costs over the anchor stands for the
 * reading (a waking kernel the host preempted is not judged). On the
 * H200 the first kernel after a gap of 1-50 ms took at most 150 us in
 * 1,919 of 1,920 gaps (about 32 launch costs over the anchor; one 308 us,
 * and such a reading leaves its round out), and a neighbour's slice took
 * 388-414 us at the median (89 launch costs). A slice with less than
 * about 230 us left passes for a cold start. So a claim with one side on
 * the host is judged less surely than one of two GPU workloads: a
 * neighbour does not slow its two sides alike. Limits: gaps longer than
 * 50 ms were not measured (a deeper idle state may start slower, and its
 * rounds would be left out); a workload counts as queueing GPU work when
 * it declares a stream or a GPU clock, or when its routing pass could not
 * look (CUPTI held elsewhere: no waking kernel then, and its cold
 * readings leave its rounds out, as before); a reading after a GPU sample
 * whose NVML poll took over PERF__CANARY_COLD_S can be cold, and leaves a
 * round out needlessly.
 *
 * The canary reads the GPU at a round's two ends and between its samples
 * (perf__canary_between): a round is clean only when all five readings
 * are. Read at the ends only, a round of 25 ms samples (an fp32 GEMM)
 * needed five rounds, 0.33 s of a neighbour's 0.5 s off-phase, before a
 * stretch (below) let one count, and such claims stayed undecided beside
 * a neighbour that comes and goes (issue 50). A neighbour that holds the
 * GPU often slices into the rounds between the readings too, and the few
 * rounds whose readings happen to be quiet are not clean:
 * on the H200 beside a stream of tiny kernels the canary found 97-100 %
 * of the rounds delayed, and two claims decided on the rest were wrong
 * (a SIMILAR of a sync-per-GEMM loop at 0.78x, quiet 0.96x: a workload
 * that syncs yields the GPU, and the slices land there). So a round is
 * clean only inside a quiet stretch: its two readings, and the readings
 * before them, PERF__CANARY_RUN in a row within the band over at least
 * PERF__CANARY_RUN_S (perf__canary_step; a stretch begins afresh at each
 * claim's first reading after its warm-ups, which ran unwatched). A
 * neighbour that comes and goes leaves such
 * stretches while it is away; one that holds the GPU often, with quiet
 * readings scattered among the delayed ones (1 in 4 beside a GEMM loop),
 * leaves none (0.25^5: 1 in 1,000 readings). The first rounds of each
 * stretch are left out as unsettled.
 *
 * It gives up on a claim (gave_up; NVML's rule then decides which rounds
 * count, as without it) once PERF__CANARY_TRIAL rounds are judged, more
 * than PERF__CANARY_MAX_DISTURBED of them left out, and the neighbour was
 * not seen to leave room: no quiet stretch in this process within
 * PERF__CANARY_MEMORY_S, and either one was seen once (it left, and has
 * stayed since) or PERF__CANARY_TRIAL_S has passed since the process's
 * first judged round without one (wall time, the time between claims
 * included). So beside a neighbour that never leaves only a process's
 * first claim spends the trial; beside one that comes and goes (0.5 s on,
 * 0.5 s off) the claims keep sampling, their rounds judged one by one,
 * until the clean ones decide them or the budget is spent.
 *
 * The link probe. The empty kernel does not see traffic on the host link,
 * and GPM's view of it is coarse: a span of the link's foreign traffic
 * covers whole read intervals (1/6 s), reaches back one more (GPM's
 * samples trail) and is padded by 0.1 s, which covered nearly all of the
 * 0.5 s off-phase of a neighbour that copies in bursts (issue 50: 38 of
 * the 50 claims left undecided beside it copied). So where the claim's
 * workloads copy between host and device (perf__canary_link: the
 * directions their traced copies take), each reading also times a pinned
 * copy of PERF__REFERENCE_LINK_BYTES each such way, host-timed, against
 * its own band: max(PERF__CANARY_FACTOR x its lowest reading, that +
 * PERF__CANARY_SLACK_LAUNCHES launch costs), trusted when that lowest
 * reading is at most the bytes at PERF__CANARY_LINK_FLOOR_BPS plus
 * PERF__CANARY_QUIET_LAUNCHES launch costs (a link never seen at a free
 * link's pace is not judged). A reading is quiet only when the kernel and
 * every copy are within their bands; a round both judge clean is
 * PERF__CANARY_CLEAN_LINK and stands though GPM's spans cover it (a copy
 * delayed marks it disturbed). Its copies are counted as ours on the link
 * (perf__cotenant_link_own). An untrusted or failed probe leaves the link
 * to GPM's rule as before.
 *
 * Blind spots: a neighbour's slice that begins and ends inside one sample
 * leaves the readings clean (2 % of the clean rounds beside the GEMM
 * loop were up to 1.2x slow; the median over rounds absorbs so few), and
 * so does a neighbour's copy there; nor does it see a neighbour that
 * shares the SMs without time slices (MPS). Cost: four readings per round
 * (a waking kernel before those after a host-only sample), only beside
 * another process (the copies only for claims that copy: about 30 us each
 * on an H200). PERF_CANARY=0 in the environment turns it off: NVML's and
 * GPM's rules alone. */
#define PERF__CANARY_QUIET_LAUNCHES 15.0
#define PERF__CANARY_FACTOR 3.0
#define PERF__CANARY_SLACK_LAUNCHES 5.0
#define PERF__CANARY_TRIAL 12
#define PERF__CANARY_MAX_DISTURBED 0.1
#define PERF__CANARY_RUN 5
#define PERF__CANARY_RUN_S 0.025
#define PERF__CANARY_TRIAL_S 0.8
#define PERF__CANARY_MEMORY_S 2.0
#define PERF__CANARY_LINK_FLOOR_BPS 8e9 /* below PCIe 3.0 x16's 16 GB/s */
#define PERF__CANARY_RETAKES 2 /* a reading the host preempted, taken again */
#define PERF__CANARY_COLD_S 0.0005 /* a gap after which, past a host-only sample, the GPU is woken */
#define PERF__CANARY_WAKE_LAUNCHES 50.0 /* a waking kernel slower than this over the anchor: a slice */

/* A round's judgement. */
typedef enum perf__canary_says {
  PERF__CANARY_UNJUDGED = -1, /* no trusted anchor, or no reading */
  PERF__CANARY_DISTURBED = 0,
  PERF__CANARY_CLEAN = 1,     /* the kernel's readings: the SMs were ours */
  PERF__CANARY_CLEAN_LINK = 2 /* and the link probe's: the host link too */
} perf__canary_says;

/* The process's quiet stretch (perf__canary_step), on the host clock. */
typedef struct perf__canary_stretch {
  long n;         /* readings within the band in a row */
  double from;    /* the first of them; 0 none */
  double left_at; /* the last reading inside a stretch long enough; 0 none */
  double first;   /* the process's first judged reading; 0 none */
} perf__canary_stretch;

/* One claim's canary. */
typedef struct perf__canary {
  perf__reference_launcher l; /* its stream (st NULL: not open) */
  perf__reference_link k;     /* the link probe's buffers (host NULL: not open) */
  int dirs;         /* the link probe's ways: 1 to the device, 2 to the host */
  int link_failed;  /* a CUDA error in the link probe: GPM judges the link */
  double last;      /* the reading after the last round (the next one's
                       before), seconds; 0 none */
  int link_last;    /* the link probe at the last reading: 0 not judged,
                       1 a copy delayed, 2 quiet */
  long link_clean;  /* rounds the link probe judged clean too */
  long clean, disturbed; /* rounds judged so (disturbed: delayed or unsettled) */
  long delayed;     /* of the disturbed, those with a reading above the band */
  int loud;         /* a reading between this round's samples was above
                       its band (perf__canary_between) */
  double cost_s;    /* host clock: the readings' time */
  long preempted;   /* readings taken again: the host preempted them */
  double read_at;   /* host clock: the end of the last reading; 0 none */
  int idled;        /* the sample before the next reading queued no GPU
                       work (set by the caller) */
  int failed;       /* a CUDA error: no more readings in this claim */
  int gave_up;      /* too many rounds delayed: it judges no more, and the
                       rounds it found clean count as NVML says */
} perf__canary;

/* 1 when a reading at t (host clock) takes a waking kernel first: the
 * sample before it queued no GPU work (idled) and the last reading ended
 * at read_at (0: none) more than PERF__CANARY_COLD_S before. Never
 * fails. */
int perf__canary_wakes(int idled, double read_at, double t);

/* The reading that counts (seconds): the judged turnaround s, or the
 * waking kernel's woke_s (0: none) when that waited past
 * PERF__CANARY_WAKE_LAUNCHES launch costs over the anchor (a neighbour's
 * slice, not a cold start) and longer than s. Without an anchor or a
 * launch cost, s. Never fails. */
double perf__canary_woken(double woke_s, double s, double anchor_s, double launch_s);

/* The rule (pure): a round between readings before and after (seconds;
 * 0: none) against anchor (the lowest reading; 0: none) and the launch
 * cost launch (seconds per launch; 0: none). Never fails. */
perf__canary_says perf__canary_judge(double anchor, double launch, double before, double after);

/* Adds a reading at time t (seconds), quiet (within the band) or not, to
 * the stretch s (pure). Returns 1 when s is now long enough for a round
 * ending at t to count: PERF__CANARY_RUN readings over PERF__CANARY_RUN_S.
 * Never fails. */
int perf__canary_step(perf__canary_stretch *s, int quiet, double t);

/* 1 while a canary that found `clean` and `disturbed` rounds still judges
 * at time t (pure), given the process's stretch s: fewer than
 * PERF__CANARY_TRIAL judged; at most PERF__CANARY_MAX_DISTURBED of them
 * left out; a long enough stretch seen within PERF__CANARY_MEMORY_S; or
 * none ever seen and less than PERF__CANARY_TRIAL_S since the process's
 * first judged round (s->first). Never fails. */
int perf__canary_trusted(long clean, long disturbed, const perf__canary_stretch *s, double t);

/* The link probe's band over its lowest reading anchor (seconds) at
 * launch cost launch (pure): 0 when either is 0 or the anchor is slower
 * than a free link's pace (canary.h). Never fails. */
double perf__canary_link_band(double anchor, double launch);

/* The band of the anchor (seconds): 0 while no anchor is trusted. Never
 * fails. */
double perf__canary_band(void);

/* The link probe's band the way given (0 to the device, 1 to the host),
 * 0 while none is trusted. Never fails. */
double perf__canary_link_band_now(int to_host);

/* Sets the ways c's link probe copies (to_device, to_host: whether the
 * claim's workloads copy so), from the next reading on. Never fails. */
void perf__canary_link(perf__canary *c, int to_device, int to_host);

/* After a round of claim c (before the first one: ready 1), when NVML has
 * shown another process in this test: reads the canary, opening it at its
 * first reading. Returns the round's judgement (ready: UNJUDGED), and
 * sets whether the canary judges the rounds that follow
 * (perf__cotenant_canary). A CUDA error, or a canary no longer trusted
 * (perf__canary_trusted: gave_up), ends the canary for the claim
 * (UNJUDGED then: NVML's rule holds). */
perf__canary_says perf__canary_round(perf__canary *c, int ready);

/* Between two samples of claim c's round, while c judges (after its
 * first reading): a reading that extends or breaks the process's quiet
 * stretch; one above its band marks the round disturbed (c->loud, which
 * the caller clears when a round begins again). Nothing otherwise; a CUDA
 * error ends the canary for the claim, as in perf__canary_round. */
void perf__canary_between(perf__canary *c);

/* Closes c's stream and buffers and stops its judging. Never fails. */
void perf__canary_close(perf__canary *c);

/* Forgets the anchor, the launch cost and the stretch (self-tests). Never
 * fails. */
void perf__canary_reset(void);

#endif
