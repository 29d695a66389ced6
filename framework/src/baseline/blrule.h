/* blrule.h — a baseline entry's statistics: clean runs, tolerance, and the check's decision. */
#ifndef PERF_BLRULE_H
#define PERF_BLRULE_H

#include "baseline/baseline.h"
#include "baseline/trace.h"

/* Each update run is one fresh process; its median per iteration is one
 * draw from the between-process distribution that a later check's process
 * is drawn from too. The rule, in one place:
 *
 * - A run is left out when its SM clock (median of its samples) is more
 *   than PERF__BL_CLOCK_MOVED below the fastest run's (a process whose GPU
 *   never reached the clocks the others had) and its time is more than
 *   one robust standard deviation (1.4826 x MAD) slower than the runs'
 *   median (a low clock that did not slow the run is no reason: an H200's
 *   bf16 GEMM, 2026-11-29, ran 1.52-1.58 ms in runs whose clock read
 *   1590-1815 MHz and 1.46-1.57 ms at 1980; leaving those out made its
 *   runs "disagree"), or when it is farther from
 *   the runs' median than max(PERF__BLR_OUT_Z robust standard deviations
 *   (1.4826 x MAD), PERF__BLR_OUT_MIN of the median): the first process of
 *   an update after the GPU idled, 47 % slow, in issue 32's report.
 * - At most perf__blrule_max_out(n) of n runs may be left out:
 *   PERF__BLR_MAX_OUT, or one per PERF__BLR_OUT_EVERY runs past the first
 *   two where that is more (1 of 5 to 11 runs, 2 of 12 to 16; a low clock counts:
 *   the 8192 GEMM that drives the H100 to its power limit had runs at 1425
 *   MHz and, at 1980 MHz, 11 % slow; an entry from the other three failed
 *   checks 5-13 % slow at full clock): where more are, the
 *   runs disagree among themselves (a launch-bound workload on the events
 *   clock whose processes differ by 10-25 %, measured on the H100): that is
 *   the workload's own spread, not a disturbed run, and leaving them out
 *   would hide it (3 clean runs of such a workload gave a 3.9 % tolerance
 *   that 4 of 20 unchanged checks failed). Such an entry is computed from
 *   all runs and flagged.
 * - An update takes as many runs as an entry's statistics need (perf__
 *   blrule_settled; supervisor/rebaseline.h runs more processes of the
 *   tests whose entries have not settled, up to --update-runs and a time
 *   budget). An entry has settled when (a) its runs left out are few
 *   enough for the runs it has: at most (n - 2) / PERF__BLR_OUT_EVERY, so
 *   that a run left out of 5 is followed by 2 more runs (re-runs that agree
 *   keep it out; one far too is the workload's slow mode showing again,
 *   and 2 out then need 12 runs), or more are out than the most runs would
 *   allow (they disagree for good); and (b) its tolerance is sure to be
 *   under the ceiling or sure to be over it at the most runs: with the
 *   spread's one-sided PERF__BLR_SETTLE_Z (80 %) bounds from its k - 1
 *   degrees of freedom (chi-square, Wilson-Hilferty), the tolerance at the
 *   upper bound is under PERF__BLR_CEILING, or the one at the lower bound
 *   with the most runs' multiplier is over it, and the same of the line
 *   it is written under (f->line: PERF__BLR_WRITE_CEILING in a GPU's
 *   file; a line under the entry's floor counts as sure). Between the two the entry "sits near the ceiling": more runs
 *   decide it (an H200 update, 2026-11-29, left launch-bound entries at
 *   50.3-60 % after 5 runs, 2 of them in a slow phase of the host). Where
 *   a floor is over that line, no run can change it: settled.
 * - A host-paced entry (perf__blrule_pace_of: in a GPU's file, the submit
 *   clock; the events clock while launch-bound; the wall clock where the
 *   trace shows a copy from pageable memory, or the GPU busy for less than
 *   PERF__BLR_GPU_PACED of the time) moves with the host's phase between
 *   processes minutes apart far more than between an update's back-to-back
 *   runs (H200, 2026-11-28: wall-clock sweep points with pageable copies,
 *   5 update runs within 1.5-2.2 %, then +12 to +24 % in unchanged checks;
 *   H100: launch-bound processes 10-25 % apart, 5 runs within 1.1 %). Its
 *   tolerance has the floor max(PERF__BLR_HOST_PACED_FLOOR, the tolerance
 *   of perfgate's host reference over the update's processes (its entry;
 *   else the readings in the entry's own processes), by
 *   the rule above). A wall-clock one is written at that tolerance up to
 *   PERF__BLR_WRITE_CEILING (the update's table says it catches only
 *   changes above it: 5 % and 10 % "no"), so that a hardware change's
 *   file still guards host-paced work against gross changes (a copy that
 *   turned synchronous, a sweep point 2x slower); a launch-bound or
 *   submit-clock one is launch-normalized (above), or, without the
 *   readings, not written (unless --accept-wide), saying what paces it:
 *   on an H200 (2026-11-29) 7 launch-bound entries written at the 25 %
 *   floor ran 25-62 % slower in one unchanged check process
 *   while perfgate's host reference ran 2.5 % slower (it times a CPU
 *   loop, not the driver's launch path). No run of a host-paced entry is left out: a far run is
 *   a phase of the host, which later processes meet too (an H200's
 *   pageable-copy GEMM, 2026-11-29: one of 8 update runs 30 % slow, left
 *   out; a check then 42 % slow, with the reference as usual). A host file's entries are the
 *   host's own work: their spread is their runs' (issue 49 item 5 times
 *   the reference with them).
 * - A launch-normalized entry: a launch-bound or submit-clock entry whose
 *   every run read perfgate's launch reference (worker/sample/
 *   reference.h) beside its samples (a ratio claim's rounds, a check's
 *   batches) is judged on its time over that reading, scaled to the
 *   readings' median over its runs (launch_s in the file), unless its
 *   trace has the GPU busy for PERF__BLR_GPU_PACED of its time or more
 *   (then its time is mostly the GPU's, waited for: an H200's 1.5 ms GEMM
 *   with a sync after each ran +29-32 % over the reading in unchanged
 *   checks, -1 to +8 % as measured; it is judged as a wall-clock host-paced
 *   entry): the driver's
 *   launch path moves between processes on one host and such work moves
 *   with it (an H200 host, 2026-11-29, 66 processes: a 20-launch eager
 *   pipeline 65-94 us, CV 11 %; over the reading CV 3.3 %, range 20 %). Its
 *   runs are all kept (host-paced) and its floor is PERF__BLR_LAUNCH_FLOOR;
 *   it is written up to PERF__BLR_WRITE_CEILING like a wall-clock
 *   host-paced one. A check reads the reference beside its samples and
 *   compares median x launch_s / reading (perf__blrule_per_launch); the
 *   launch reference never explains a slowdown (it is in the number; an
 *   entry that is not normalized is GPU-bound, where the launch path is
 *   the lesser part), the host one still may. What it cannot see: a driver or CUDA update
 *   that slows every launch (the probe slows with the workload: the
 *   launch_reference entry's own change says so), or a regression of the
 *   launch path that only the workload's kind of launch meets. Without a
 *   reading (no GPU, a launch error) such an entry is not written, as
 *   before, and a check of a launch_s entry times the reference once
 *   after its samples.
 * - An entry checked on another card of its model (the file's GPU uuid is
 *   not this GPU's: a fleet shares one file per model) holds one
 *   machine's spread only. Four H200s with their hosts (2026-11-29): the
 *   GPU's own work (events-clock kernels, GEMMs, pinned copies) within 1 %
 *   of each other but a 25 us graph replay +6.2 % and an fp32 GEMM timed
 *   on the wall clock +5.0 %; host-paced work (pageable copies, first
 *   calls, host-timed sweeps) up to +33 % and, the first cuBLAS call and a
 *   pageable-copy GEMM, +66 to +120 %, with the host reference 11-21 %
 *   apart; launch-normalized entries within 15 % (the eager pipeline 20.0
 *   launches on all three). So there a slower check of a host-paced entry
 *   that is not launch-normalized is not decided (SKIPPED: another
 *   machine's host), and of any other entry only beyond its tolerance plus
 *   PERF__BLR_CARD_MARGIN (perf__blrule_card_undecided); within its
 *   tolerance it passes as anywhere. Re-recording on the runner gates it
 *   there.
 * - A power-paced entry (in a GPU's file, one whose samples read the SM
 *   clock more than PERF__BL_CLOCK_MOVED below the highest reading over
 *   its runs: the GPU at its power or thermal limit while timing it) has
 *   the clock's fall (highest - lowest) / highest as its tolerance's
 *   floor: its time moves with the GPU's power state, which differs
 *   between processes minutes apart more than between an update's
 *   back-to-back runs (H200, 2026-11-29: an 8192^2 fp16 GEMM read 1500-1980
 *   MHz; its 8 update runs agreed within 0.59 %, then unchanged checks ran
 *   +2.5 % to +13.1 %, and the same GEMM's other entries spread 1.7-4.2 %
 *   over their runs; the H100's ran 1.43-1.65 ms). The fall is the
 *   largest among the test's entries whose longest traced kernel is the
 *   same (supervisor/rebaseline.c). Its reading at the
 *   check's samples still explains a slower check (below).
 * - The entry's median is the clean runs' median; their spread is their
 *   standard deviation over that median (between processes: each run's
 *   own noise is in it); tolerance = max(PERF__BLR_FLOOR, Z(k) x spread x
 *   sqrt(1 + 1/k)) for k clean runs: the spread of a fresh process around
 *   a median estimated from k. Z(k) = PERF__BLR_Z up to 5 clean runs; from
 *   6 on, Student's t with k - 1 degrees of freedom at the tail
 *   PERF__BLR_Z has with 4 (0.81 %: 3.31 for 7 clean runs, 2.84 for 12): the
 *   spread is known better, the rate of false alarms the same
 *   (perf__blrule_z).
 * - Tolerance above PERF__BLR_CEILING: the entry is "wide": it lets
 *   through a 10 % change. It is written up to PERF__BLR_WRITE_CEILING,
 *   marked WIDE with the change it does catch (an entry that catches only
 *   a 2x slowdown still gates a GEMM that lost its tensor cores, where
 *   without an entry nothing would: the H200's first update left 28 of 89
 *   workloads without one, 2026-11-29); so is an
 *   entry whose runs disagree, from all its runs. Over
 *   PERF__BLR_WRITE_CEILING a check could not tell the workload's time
 *   from 1.5x it: its time is not one number, and the update does not
 *   write it unless asked to (--accept-wide). A host file's entry is
 *   written up to PERF__BLR_CEILING only (the host's own work: an OpenMP
 *   point written at 46 % ran 60-90 % slower in a later process).
 * - A check fails (regression) when its median is slower than the entry's
 *   by more than the tolerance and by more than PERF__BLR_SIG standard
 *   errors of the difference, where the standard error holds the entry's
 *   between-process spread (x sqrt(1 + 1/k)) and the new median's own
 *   (1.2533 x 1.4826 x MAD / sqrt(n)); an entry without runs (version 1,
 *   or older entries) has only the two medians' own errors. Faster by the
 *   same rule is an improvement.
 * - A regression measured while the SM clock ran more than
 *   PERF__BL_CLOCK_MOVED below the entry's, whose cycles (time x SM clock)
 *   are within the tolerance, is not decided: the clock explains it (a
 *   1.5 ms GEMM whose process ran at 1890 MHz, the GPU at its power limit,
 *   was 11.8 % slower against an entry recorded at 1980 MHz, on the H100).
 * - Every update also records perfgate's reference work (worker/sample/reference.h)
 *   as entries of the test PERF__BLR_REFERENCE_TEST (no test's name: those
 *   hold a dot), judged by the same rule but always written. A regression
 *   whose process ran a reference that applies to its clock slower than
 *   that entry (by the rule above, and by more than PERF__BLR_REF_MIN: the
 *   GPU reference's level moves by up to 1.5 % between quiet processes, 2 %
 *   of 500 H100 processes were 5-15 % slow) is not decided when the slowdown the
 *   check is sure of (its change less PERF__BLR_SIG standard errors) is at
 *   most PERF__BLR_REF_FACTOR times the reference's: the machine is
 *   slower, and what is left cannot be told from it (the H100 runner,
 *   2026-11-26: its host ran the reference 11.5-172 % slow for a few
 *   seconds, and host-timed workloads 5-58 % slow with it).
 * - A host-paced PERF_EXPECT_BASELINE (the clocks the host reference
 *   applies to) reads the host reference between its sample batches
 *   (worker/sample/inband.h), not after them: a shared VM's slow phases,
 *   which steal time does not show, come and go within seconds, and a
 *   reference timed after the samples saw only part of one (a 2-core EPYC
 *   VM, issue 49: a spin loop 92 % slow, the reference after it 21.5 %). A
 *   batch next to a reading above the band (perf__blrule_ref_band: the
 *   entry's median plus max(PERF__BLR_REF_MIN, its tolerance), the rule a
 *   reference explains by) is left out, and the check is decided on the
 *   others (enough of them: worker/sample/inband.h); with too few, on all.
 *   The readings beside the samples decided on (within the band, or above
 *   it when all are) are the reference's change, and explain a slowdown
 *   by the rule above from PERF__BLR_READ_MIN on, without asking them to
 *   be beyond the reference entry's tolerance (the spread between the
 *   update's processes): they measured this process's machine during its
 *   samples (perf__blrule_readings_explain; an update disturbed in one run
 *   gave the reference a 15 % tolerance, and checks whose readings and
 *   workload both ran 3 % slow failed). The update records the reference
 *   as the readings are taken (a reading: the mean of 3 timings) and
 *   samples the same way, every batch kept. On that VM, 20 unchanged and
 *   10 planted +20 % checks a round, beside other engineers' builds, two
 *   busy loops or a simulated slow phase: no false FAIL in 220, 103 of 110
 *   caught (before: 24 false FAILs in 240; docs/baselines.md).
 * - A run left out as slower than the others by at most
 *   PERF__BLR_MODE_MAX, in whose process perfgate's references ran as
 *   usual (by the check's rule: no more than max(PERF__BLR_REF_MIN, the
 *   reference entry's tolerance) over its median), is a slow mode of the
 *   workload's own (wall-clock sweep points on the H100: one run of 7 at
 *   +12-21 %, then 2 of 2 quiet checks 8-25 % slow; slower runs there came
 *   with the host's reference slow too): it is kept in the entry
 *   (slow_runs_s), and a regression no slower than the slowest such run
 *   plus the tolerance is not decided: it cannot be told from that mode.
 *   The run counts as no slower than PERF__BLR_MODE_MAX over the entry and
 *   the tolerance as no wider than PERF__BLR_CEILING, so a mode excuses at
 *   most about +35 %, never a check far slower than itself (a tolerance set
 *   to 100 % once let a run 10 % slow excuse a 10x check: issue 49).
 *   A slower run (the first process after an idle GPU, 47 % slow, in issue
 *   32's report) is a disturbance, not kept.
 * - A regression of a host-paced measurement (the clocks the host
 *   reference applies to) during which issue 31's rule named a host cause
 *   (other processes' load, steal, quota, a busy SMT sibling, a low CPU
 *   clock: host/hostcause.h) is not decided when the slowdown the check is
 *   sure of is at most PERF__BLR_REF_FACTOR x max(the host reference's
 *   change, PERF__BLR_BUSY_MIN): beside 8 busy loops on the H100's 16 CPUs
 *   host-timed workloads ran 8-33 % slow while the single-threaded
 *   reference loop ran 4-8 % slow (2026-11-26), timed after them. Where the
 *   samples decided on were taken beside readings within the reference's
 *   band, the floor is PERF__BLR_REF_MIN: the reference measured the
 *   machine during them (beside other engineers' builds on the 2-core VM,
 *   the 10 % floor excused a planted +20 % in 8-10 of 10 checks). A
 *   measurement whose own threads kept PERF__BLR_PARALLEL_MIN CPUs or
 *   more busy at once (OpenMP, a thread pool) is not decided at all on
 *   such a host, whatever its slowdown: its parallel steps wait for their
 *   slowest thread, and a thread that shares its CPU with another process
 *   waits a time slice; on an H200 host beside 16 busy loops on its 16
 *   CPUs (2026-11-29), a 16-thread nested sine ran 77 us -> 32 ms and a
 *   hybrid CPU/GPU pipeline 0.76 -> 16 ms while the single-threaded
 *   reference ran 3-11 % slower. */
#define PERF__BLR_OUT_Z 4.0
#define PERF__BLR_OUT_MIN 0.08
#define PERF__BLR_MAX_OUT 1
#define PERF__BLR_Z 4.0
#define PERF__BLR_FLOOR 0.01
#define PERF__BLR_CEILING 0.10 /* and PERF__BL_TOLERANCE_MAX bounds it: runs spread
                                  wider (a busy host) still give a file the loader reads */
#define PERF__BLR_SIG 3.0
/* An events-clock sample is launch-bound when the host took this share of
 * its time or more to queue the batch (worker/sample/workload.h: queue_share); an
 * update does not write an entry with such a run unless asked to. */
#define PERF__BLR_LAUNCH_BOUND 0.9
/* The runs every update takes of every test (PERF__BLR_Z is the
 * multiplier for this many clean runs); more runs, host-paced entries
 * (the rule above). */
enum { PERF__BLR_RUNS = 5 };
#define PERF__BLR_OUT_EVERY 5
#define PERF__BLR_SETTLE_Z 0.8416 /* the normal's 80 % quantile */
#define PERF__BLR_GPU_PACED 0.5
#define PERF__BLR_HOST_PACED_FLOOR 0.25
#define PERF__BLR_LAUNCH_FLOOR 0.12 /* about 3.5 x the normalized CV, 1.2 x its half-range */
#define PERF__BLR_WRITE_CEILING 0.5 /* an entry is written up to it (WIDE over the ceiling) */
#define PERF__BLR_REF_FACTOR 3.0
#define PERF__BLR_REF_MIN 0.03
/* The host reference's readings beside a check's samples (inband.h) explain
 * from this change on: their median is of 3 readings or more (17 for a
 * check that takes 64 samples), of the statistic the update records (a
 * reading's mean of 3 timings). */
#define PERF__BLR_READ_MIN 0.01
#define PERF__BLR_MODE_MAX 0.25
#define PERF__BLR_BUSY_MIN 0.10
#define PERF__BLR_PARALLEL_MIN 1.5 /* CPUs a measurement's own threads kept busy at once */
#define PERF__BLR_CARD_MARGIN 0.08 /* GPU-paced times of one model's cards differ this much */

/* The reference entries: the test (no perftest binary's test has its name:
 * theirs hold a dot; an embedder must not name a test so), and one row per
 * reference. */
#define PERF__BLR_REFERENCE_TEST "perfgate"
#define PERF__BLR_REFERENCE_MAP(X)                    \
  X(PERF__BLR_REF_HOST, "host_reference", "wall")     \
  X(PERF__BLR_REF_GPU, "gpu_reference", "events")     \
  X(PERF__BLR_REF_LAUNCH, "launch_reference", "submit")
typedef enum perf__blrule_ref {
#define PERF__BLR_REF_ENUM(id, name, clock) id,
  PERF__BLR_REFERENCE_MAP(PERF__BLR_REF_ENUM)
#undef PERF__BLR_REF_ENUM
  PERF__BLR_NREFS
} perf__blrule_ref;

/* 1 when a slower machine would slow a workload through reference k: the
 * host one for the host clocks ("wall", "submit") and a launch-bound
 * "events" clock (queue_share >= PERF__BLR_LAUNCH_BOUND), the GPU one for
 * any workload that uses the GPU (uses_gpu; a baseline file of a GPU holds
 * only such workloads), the launch one for a GPU's "submit" clock and a
 * launch-bound "events" one. Never fails. */
int perf__blrule_ref_applies(perf__blrule_ref k, const char *clock, double queue_share,
                             int uses_gpu);

/* The entry name and clock of reference k. Never fail. */
const char *perf__blrule_ref_name(perf__blrule_ref k);
const char *perf__blrule_ref_clock(perf__blrule_ref k);

/* Why a run was left out. */
typedef enum perf__blrule_why {
  PERF__BLR_CLEAN = 0,
  PERF__BLR_OUTLIER,   /* too far from the runs' median */
  PERF__BLR_LOW_CLOCK  /* its SM clock below the fastest run's */
} perf__blrule_why;

/* An update's runs of one entry, judged. */
typedef struct perf__blrule_fit {
  perf__blrule_why why[PERF__BL_MAX_RUNS];
  int nclean;
  double median;    /* of the clean runs (of all runs when too many are out) */
  double off[PERF__BL_MAX_RUNS]; /* each run's (value - median of all) / median of all */
  unsigned top_mhz; /* the fastest run's SM clock (0: none known) */
  double spread;    /* the clean runs' standard deviation / median; 0 for one run */
  double tolerance; /* max(floor, Z x spread x sqrt(1 + 1/k)), at most
                       PERF__BL_TOLERANCE_MAX (the file's bound) */
  int too_few;      /* more than perf__blrule_max_out runs out: computed from all */
  int wide;         /* tolerance > PERF__BLR_CEILING */
  int nruns;        /* the runs judged */
  double floor;     /* the tolerance's floor: PERF__BLR_FLOOR, or a host-paced
                       entry's (perf__blrule_raise_floor) */
  double line;      /* the most tolerance it is written with: PERF__BLR_WRITE_CEILING
                       (perf__blrule_fit_runs), PERF__BLR_CEILING where the update
                       says so (a host's file; an entry never written) */
} perf__blrule_fit;

/* Judges n runs (n in 1..PERF__BL_MAX_RUNS): v[i] their medians (> 0),
 * mhz[i] their SM clocks (0: unknown, never judged; mhz may be NULL).
 * Returns 0, or PERF__EINVAL for a bad n or value (f is then zeroed). */
int perf__blrule_fit_runs(const double *v, const unsigned *mhz, int n, perf__blrule_fit *f);

/* The same fit of all n runs, none left out: a host-paced entry's (the
 * rule above). Returns 0, or PERF__EINVAL as perf__blrule_fit_runs. */
int perf__blrule_fit_all(const double *v, int n, perf__blrule_fit *f);

/* How many of n runs may be left out by the rule above (at least
 * PERF__BLR_MAX_OUT). Never fails. */
int perf__blrule_max_out(int n);

/* The tolerance's multiplier Z(k) for k clean runs by the rule above
 * (PERF__BLR_Z for k <= 5). Never fails. */
double perf__blrule_z(int k);

/* Raises f's floor to floor (a host-paced entry's: the rule above) and
 * its tolerance and wide with it. Never fails. */
void perf__blrule_raise_floor(perf__blrule_fit *f, double floor);

/* Whether an entry's runs have settled (the rule above), and if not, why
 * more runs are needed; words by perf__blrule_settle_word. */
#define PERF__BLR_SETTLE_MAP(X)                          \
  X(PERF__BLR_SETTLED, "settled")                        \
  X(PERF__BLR_MORE_LEFT_OUT, "a run left out")           \
  X(PERF__BLR_MORE_DISAGREE, "runs disagree")            \
  X(PERF__BLR_MORE_NEAR_CEILING, "near the ceiling")
typedef enum perf__blrule_settle {
#define PERF__BLR_SETTLE_ENUM(id, word) id,
  PERF__BLR_SETTLE_MAP(PERF__BLR_SETTLE_ENUM)
#undef PERF__BLR_SETTLE_ENUM
} perf__blrule_settle;

/* Judges f (its nruns runs, its floor) against an update that may take
 * max_runs runs: PERF__BLR_SETTLED when more runs cannot change what is
 * written (f->nruns >= max_runs included). Never fails. */
perf__blrule_settle perf__blrule_settled(const perf__blrule_fit *f, int max_runs);
const char *perf__blrule_settle_word(perf__blrule_settle s);

/* What paces a measurement, when the host does (the rule above); the
 * word the update's table gives an entry it does not write for it, and
 * why, as a clause. */
#define PERF__BLR_PACE_MAP(X)                                                              \
  X(PERF__BLR_PACE_GPU, "", "")                                                            \
  X(PERF__BLR_PACE_SUBMIT, "host-paced", "the submit clock times the host's calls")        \
  X(PERF__BLR_PACE_LAUNCH, "launch-bound",                                                 \
    "the host took 90% or more of its events time to queue the work")                      \
  X(PERF__BLR_PACE_PAGEABLE, "host-paced",                                                 \
    "it copies from pageable host memory, which the host stages")                          \
  X(PERF__BLR_PACE_HOST_SHARE, "host-paced", "the GPU works less than half of its wall time")
typedef enum perf__blrule_pace {
#define PERF__BLR_PACE_ENUM(id, word, why) id,
  PERF__BLR_PACE_MAP(PERF__BLR_PACE_ENUM)
#undef PERF__BLR_PACE_ENUM
} perf__blrule_pace;

/* What a measurement's trace says of it (baseline/trace.h). */
typedef struct perf__blrule_traced {
  int pageable;    /* a copy from or to pageable host memory */
  double device_s; /* the GPU's time per iteration */
} perf__blrule_traced;

/* What trace t says of its measurement, into *out; 0 when t holds no
 * traced call (then it says nothing). Never fails. */
int perf__blrule_traced_of(const perf__trace *t, perf__blrule_traced *out);

/* 1 when the GPU works PERF__BLR_GPU_PACED of a measurement's median_s
 * (per iteration) or more, by its trace t: its time is mostly the GPU's.
 * Never fails. */
int perf__blrule_gpu_bound(const perf__blrule_traced *t, double median_s);

/* What paces a measurement of median_s per iteration on clock (events:
 * its highest queueing share) in a GPU's file (uses_gpu; a host file's
 * are never host-paced here), t its trace (NULL: none). Never fails. */
perf__blrule_pace perf__blrule_pace_of(const char *clock, double queue_share, int uses_gpu,
                                       const perf__blrule_traced *t, double median_s);
const char *perf__blrule_pace_word(perf__blrule_pace p);
const char *perf__blrule_pace_why(perf__blrule_pace p);

/* 1 when a check whose median is (1 + change) x e's, with the noise of one
 * of e's update runs (spread_s, samples / nruns), would be a regression by
 * perf__blrule_compare: what the entry protects. Never fails. */
int perf__blrule_catches(const perf__baseline_entry *e, double change);

/* The between-process spread of an entry's runs (standard deviation over
 * the entry's median), or -1 when it has fewer than 2. Never fails. */
double perf__blrule_spread(const perf__baseline_entry *e);

/* The new median's relative precision that is enough against e: a
 * quarter of its between-process spread, at least rel_min (the median's
 * own error then adds at most 3 % to the check's). Never fails. */
double perf__blrule_precision(const perf__baseline_entry *e, double rel_min);

/* Compares a measurement (median, MAD, sample count, per iteration) with
 * base by the rule above; *rel gets (median - base) / base and *se (may be
 * NULL) the standard error of that, relative. Never fails. */
perf__baseline_change perf__blrule_compare(const perf__baseline_entry *base, double median,
                                           double mad, long samples, double *rel, double *se);

/* 1 when a slower check (rel, se: perf__blrule_compare's) of e on another
 * card of its model is not decided by the rule above: host_paced (the host
 * reference applies to its clock) and not launch-normalized, or its
 * slowdown less PERF__BLR_SIG standard errors within e's tolerance plus
 * PERF__BLR_CARD_MARGIN. Never fails. */
int perf__blrule_card_undecided(const perf__baseline_entry *e, double rel, double se,
                                int host_paced);

/* A launch-normalized measurement (the rule above): median x launch_s /
 * reading, where launch_s is the entry's and reading this process's (both
 * seconds per launch); median itself when either is not a positive
 * number. Never fails. */
double perf__blrule_per_launch(double median, double launch_s, double reading);

/* 1 when the SM clock of a slower measurement (median per iteration,
 * mhz: its samples' SM clock, 0 unknown) explains it by the rule above;
 * 0 otherwise, or when either clock is unknown. Never fails. */
int perf__blrule_clock_explains(const perf__baseline_entry *base, double median, unsigned mhz);

/* 1 when a host that issue 31's rule found busy (hostcause.h) during a
 * host-paced measurement explains its slowdown rel (standard error se),
 * given the host reference's change then (host_rel, 0 unknown), by the
 * rule above: in_band, the samples decided on were taken beside readings
 * of the reference within its band (the floor is then PERF__BLR_REF_MIN,
 * else PERF__BLR_BUSY_MIN). Never fails. */
int perf__blrule_busy_host_explains(double rel, double se, double host_rel, int in_band);

/* 1 when a host-paced measurement that ran cpus CPUs' worth of its own
 * threads at once (its process's CPU time over the wall time of its
 * samples), on a host that issue 31's rule found busy, is not decided
 * however much slower it ran (the rule above): from PERF__BLR_PARALLEL_MIN
 * on. Never fails. */
int perf__blrule_parallel_busy_explains(double cpus);

/* 1 when a slower measurement (median per iteration) is within the slow
 * mode e's update saw by the rule above (at most the slowest such run,
 * counted no slower than PERF__BLR_MODE_MAX over the entry, plus the
 * tolerance, counted no wider than PERF__BLR_CEILING); *slow gets the
 * slowest such run. Never fails. */
int perf__blrule_slow_mode_explains(const perf__baseline_entry *e, double median, double *slow);

/* The band of the host reference's readings between a check's sample
 * batches (worker/sample/inband.h) by the rule above: its entry's median
 * plus max(PERF__BLR_REF_MIN, its tolerance), in seconds; 0 without an
 * entry (ref NULL). Never fails. */
double perf__blrule_ref_band(const perf__baseline_entry *ref);

/* 1 when the host reference as a check read it between its sample batches
 * (median: of the readings beside the samples it decided on) explains its
 * slowdown rel (se) by the rule above: the readings ran more than
 * PERF__BLR_READ_MIN slower than ref's median (they measured this process's
 * machine during its samples: ref's tolerance, the spread between the
 * update's processes, is not asked) and the slowdown the check is sure of
 * is at most PERF__BLR_REF_FACTOR times theirs; *ref_rel gets their change.
 * Never fails. */
int perf__blrule_readings_explain(const perf__baseline_entry *ref, double median, double rel,
                                  double se, double *ref_rel);

/* 1 when a reference measured now (median, MAD, samples) against its entry
 * ref explains a workload's slowdown rel (se: its standard error, as
 * perf__blrule_compare gives it) by the rule above; *ref_rel gets the
 * reference's change. Never fails. */
int perf__blrule_ref_explains(const perf__baseline_entry *ref, double median, double mad,
                              long samples, double rel, double se, double *ref_rel);

#endif
