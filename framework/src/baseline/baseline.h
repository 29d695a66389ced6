/* baseline.h — the in-memory model of a per-GPU baseline file. */
/* It holds the entries, ratios and work counts, their hash index, an entry's
 * SM clock and the file's name. */
#ifndef PERF_BASELINE_H
#define PERF_BASELINE_H

#include <stddef.h>

#include "baseline/peaks.h"

/* The baseline schema version this perfgate writes; it reads 1 and 2.
 * Version 2 adds each entry's SM clock (sm_clock_mhz, issue 31 item 7). It
 * is the one schema bump the baseline issue (32) owns and is not released
 * yet: issue 32 adds its fields (the per-run values) to this same version
 * 2 before any release, so that released files know only versions 1 and 2.
 * A version-1 file still loads, its entries' SM clock unknown. Version 2
 * also holds each entry's declared work (bytes_read, bytes_written,
 * flops, flop_type: issue 35) and, as entries of the test "perfgate"
 * named PERF__BL_PEAK_PREFIX + type + "_" + clock, the calibration that
 * measured this machine's achievable peaks (worker/sample/calibrate.h),
 * and, in an optional top-level list `work:`, what one call of a workload
 * executed on the GPU (perf__baseline_work). */
#define PERF__BL_SCHEMA 2
/* The tolerance of an entry written without one (by hand); an update
 * writes the one its runs allow (baseline/blrule.h). */
#define PERF__BL_TOLERANCE 0.05
/* The range of a tolerance the file format holds (the loader refuses
 * others; an update writes no more than the largest). */
#define PERF__BL_TOLERANCE_MIN 0.001
#define PERF__BL_TOLERANCE_MAX 10.0
/* A calibration entry's workload name: "peak_" + "dram", "link",
 * "link_h2d", "link_d2h" or a flop
 * type's word, "_" + its clock ("peak_dram_events", "peak_fp16_cold"). */
#define PERF__BL_PEAK_PREFIX "peak_"
/* The SM clock has "moved" between a baseline and a measurement when the
 * medians differ by more than this fraction (NVML's clock steps are 15 MHz,
 * 0.8 % of 1980 MHz). */
#define PERF__BL_CLOCK_MOVED 0.01

typedef struct perf__baseline_kv {
  char key[48];
  char value[200];
} perf__baseline_kv;

/* The SM clock of the samples a measurement or an entry was made from, in
 * MHz, as NVML read it after each sample: their median, lowest and
 * highest. All 0: unknown (NVML could not read it, the workload runs on
 * the host only, or a version-1 file). */
typedef struct perf__baseline_mhz {
  unsigned median, min, max;
} perf__baseline_mhz;

/* One measured workload of one test. */
enum { PERF__BL_MAX_RUNS = 16 }; /* runs_s of one entry, at most */

typedef struct perf__baseline_entry {
  char test[200];     /* suite.name */
  char workload[96];
  char clock[16];     /* events, wall, submit */
  double median_s;    /* per iteration */
  double spread_s;    /* median absolute deviation, per iteration */
  long samples;
  double tolerance;   /* allowed slowdown, fraction */
  perf__baseline_mhz sm_clock; /* schema 2; unknown in a version-1 file */
  double runs_s[PERF__BL_MAX_RUNS]; /* schema 2: each update run's median, in run order */
  int nruns;          /* 0: not recorded (a version-1 file, an older entry) */
  double slow_s[PERF__BL_MAX_RUNS]; /* schema 2: runs the update left out as
                                       slower than the others while perfgate's
                                       reference ran as usual (baseline/blrule.h) */
  int nslow;
  double launch_s;    /* schema 2: a launch-normalized entry's launch reference, seconds
                         per launch, that runs_s and median_s are scaled to (0: none;
                         baseline/blrule.h) */
  perf__peaks_work work;    /* schema 2: what one iteration declared it moves and
                         computes (all 0: nothing; baseline/peaks.h) */
  char *trace;        /* schema 2: what the GPU did for one iteration, as
                         baseline/trace.h's JSON text; NULL: none. A baseline
                         owns the text of the entries it holds
                         (perf__baseline_put_entry copies it) */
  char recorded[32];  /* date, YYYY-MM-DD */
} perf__baseline_entry;

/* The measured ratio of one ratio claim. */
typedef struct perf__baseline_ratio {
  char test[200];
  char claim[200];    /* "FASTER(async, sync_each, 1.3)" */
  double ratio;
  char recorded[32];
} perf__baseline_ratio;

/* What one call of a workload executed on the GPU, as an update counted it
 * (CUPTI's range profiler, untimed), for PERF_EXPECT_SAME_WORK claims
 * (schema 2, the file's optional `work:` list). */
typedef struct perf__baseline_work {
  char test[200];     /* suite.name */
  char workload[96];  /* the workload's entry name (with a sweep point: "cpu[n=256]") */
  double insts;       /* sm__inst_executed.sum of one call: warp instructions, > 0 */
  double dram_read;   /* dram__bytes_read.sum of one call, bytes, >= 0 (reported, not decided) */
  char recorded[32];  /* YYYY-MM-DD */
} perf__baseline_work;

/* A count is the same work within this fraction (the claim and the
 * update's agreement check between its runs both use it). */
#define PERF__BL_WORK_TOLERANCE 0.005
/* The largest count the file format holds (the loader refuses more). */
#define PERF__BL_WORK_MAX 1e18

enum { PERF__BL_MAX_FP = 24 };

typedef struct perf__baseline {
  int schema; /* the version the file was read with; written: PERF__BL_SCHEMA */
  perf__baseline_kv fp[PERF__BL_MAX_FP]; /* fingerprint, in file order */
  size_t nfp;
  perf__baseline_entry *entries;
  size_t nentries, cap_entries;
  perf__baseline_ratio *ratios;
  size_t nratios, cap_ratios;
  perf__baseline_work *works; /* schema 2 */
  size_t nworks, cap_works;
  /* hash indexes of entries (test, workload), ratios (test, claim) and
   * work counts (test, workload), so that loading and finding stay linear
   * in the entries: open addressing, each slot an index + 1 (0: empty), a
   * power of two at most half full */
  size_t *entry_slots, nentry_slots;
  size_t *ratio_slots, nratio_slots;
  size_t *work_slots, nwork_slots;
} perf__baseline;

void perf__baseline_init(perf__baseline *b);
void perf__baseline_free(perf__baseline *b);

/* Key comparisons the entry, ratio and work count lookups have made in this process
 * (for the tests: loading n entries costs O(n) of them). Never fails. */
unsigned long long perf__baseline_key_compares(void);


/* Replaces the entry with the same test and workload, or appends it, with
 * a copy of e->trace. Returns 0 or PERF__ENOMEM (b unchanged). */
int perf__baseline_put_entry(perf__baseline *b, const perf__baseline_entry *e);
/* Same for a ratio, keyed by test and claim. */
int perf__baseline_put_ratio(perf__baseline *b, const perf__baseline_ratio *r);
/* Same for a work count, keyed by test and workload. */
int perf__baseline_put_work(perf__baseline *b, const perf__baseline_work *w);
/* The entry for test and workload, or NULL. */
const perf__baseline_entry *perf__baseline_find(const perf__baseline *b, const char *test,
                                    const char *workload);
/* The ratio for test and claim, or NULL. */
const perf__baseline_ratio *perf__baseline_find_ratio(const perf__baseline *b, const char *test,
                                                      const char *claim);
/* The work count for test and workload, or NULL. */
const perf__baseline_work *perf__baseline_find_work(const perf__baseline *b, const char *test,
                                                    const char *workload);
/* Sets a fingerprint field (replacing one with the same key); 0, or
 * PERF__EINVAL when the table is full. */
int perf__baseline_set_fp(perf__baseline *b, const char *key, const char *value);
/* The same with the value from fmt (truncated at 199 bytes). */
int perf__baseline_set_fp_printf(perf__baseline *b, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* How a new measurement compares with its baseline entry. */
typedef enum perf__baseline_change {
  PERF__BL_SAME,        /* within tolerance, or not significant */
  PERF__BL_SLOWER,      /* slower beyond tolerance AND significantly: a regression */
  PERF__BL_FASTER       /* faster beyond tolerance AND significantly: an improvement */
} perf__baseline_change;

/* The SM clock of n samples (mhz[i]: MHz after sample i, 0 unknown): the
 * median (of an even count, the mean of the middle two, rounded), lowest
 * and highest of the known ones; unknown when none is known (or without
 * memory for the median: never a made-up number). */
perf__baseline_mhz perf__baseline_mhz_of(const unsigned *mhz, size_t n);

/* The SM clock of an entry merged from n runs: the median of the known
 * runs' medians, the lowest min and the highest max; unknown when no run's
 * is known. Never fails (as perf__baseline_mhz_of). */
perf__baseline_mhz perf__baseline_mhz_merge(const perf__baseline_mhz *runs, size_t n);

/* What the SM clock says about a measurement (median per iteration, SM
 * clock now) against base, for its verdict line; the verdict itself is
 * decided on time alone (perf__blrule_compare). When both clocks are
 * known and moved by more than PERF__BL_CLOCK_MOVED, and the time or the
 * cycles (time x SM clock) moved beyond base->tolerance, writes
 * "; the SM clock moved from 1980 to 1755 MHz (-11.4%): in cycles (time x
 * SM clock) the workload is unchanged (+0.2%)" (cycles within tolerance)
 * or "...; in cycles (time x SM clock) it changed too (+9.8%)" (the cycles
 * beyond tolerance; "it changed by" when the time did not) into buf and
 * returns 1; otherwise buf is "" and it returns 0. Never fails. */
int perf__baseline_clock_note(const perf__baseline_entry *base, double median,
                              perf__baseline_mhz now, char *buf, size_t len);

/* A calibration entry's workload name for the peak named what ("dram",
 * "link", "link_h2d", "link_d2h" or a flop type's word) on clock: "peak_dram_events",
 * "peak_fp16_cold". Returns buf; truncates. Never fails. */
char *perf__baseline_peak_name(const char *what, const char *clock, char *buf, size_t len);

/* A file-name-safe slug of a model name: lower-case letters, digits and
 * single '-' between words, at most 64 characters; "unknown" when nothing
 * is left. Never contains '/', '.' or '..'. Returns buf. */
char *perf__baseline_slug(const char *model, char *buf, size_t len);

/* 1 when a directory entry's name is a baseline file's, one a run reads:
 * it ends in ".yaml" and is more than that (an atomic writer's
 * temporaries "x.yaml.tmp.PID", README.md and the lock file are not).
 * Never fails. */
int perf__baseline_is_file_name(const char *name);

/* The fingerprint's model name ("name" field), or "unknown". Never fails. */
const char *perf__baseline_model(const perf__baseline *b);

/* The value of fingerprint field key, or NULL. Never fails. */
const char *perf__baseline_fp(const perf__baseline *b, const char *key);

/* The fingerprint field that makes a fingerprint a host's (baseline/machine.h:
 * the logical CPUs); a GPU's has none. */
#define PERF__BL_FP_CPUS "cpus"

/* This machine's file in dir for fingerprint b, into out: a GPU's
 * dir/<slug of the model>.yaml; a host's (with a whole number of CPUs,
 * PERF__BL_FP_CPUS) dir/<slug of the model>-<CPUs>-cpus.yaml, so that two
 * machines of one generic model name ("Intel(R) Xeon(R) Processor") with
 * 16 and 2 CPUs have a file each. Returns out. Never fails (truncates). */
char *perf__baseline_path(const char *dir, const perf__baseline *b, char *out, size_t len);

/* The name a host's file had before host files were named by their CPU
 * count too, dir/<slug of the model>.yaml, into out; returns 1, or 0 for a
 * fingerprint whose name never changed (a GPU's: out is then ""). Never
 * fails (truncates). */
int perf__baseline_path_before(const char *dir, const perf__baseline *b, char *out, size_t len);

#endif
