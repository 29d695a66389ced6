/* blmachine.h — this machine's baseline file, loaded once per worker, for host and GPU work. */
/* The door (bldoor.c) reads, judges and records through it. */
#ifndef PERF_BLMACHINE_H
#define PERF_BLMACHINE_H

#include <stddef.h>

#include "baseline/baseline.h"
#include "perfgate.h"

/* This machine as host-only work (gpu 0) or GPU work (gpu 1) sees it. */
typedef struct perf__blmachine {
  int loaded, exists, bad, other; /* other: the file of this machine's name is
                                     another machine's (baseline/machine.h) */
  int gpu;             /* which of the two */
  char card[80];       /* the GPU uuid the file was recorded on, when it is not this
                          GPU's: another card of the model ("": this one, or unknown) */
  perf__baseline now;  /* fingerprint measured in this process */
  perf__baseline file; /* the baseline file, when it exists */
  char path[4200];
  char err[1200];      /* bad: what is wrong with the file; other: the two machines */
} perf__blmachine;

/* The machine for host work (gpu 0) or GPU work (1), its fingerprint and
 * file loaded at the first call in this worker: this machine's file (a
 * host's named by its model and CPU count, or under the name it had
 * before), never another machine's that has this machine's name (other:
 * its checks are skipped, saying why); notices say how the file differs.
 * Never fails (a file that does not load is bad, with err). */
perf__blmachine *perf__blmachine_get(int gpu);

/* m, when its file is not malformed; a malformed one ends the test as
 * ERROR. */
perf__blmachine *perf__blmachine_usable(perf__blmachine *m);

/* The machine of w's work (GPU or host); a malformed file ends the test
 * as ERROR. */
perf__blmachine *perf__blmachine_of(const perf_workload *w);

/* w's entry name: the workload's, with the sweep point inside a sweep
 * ("cpu[n=256]"), into buf[len]. Returns buf; never fails (truncates). */
const char *perf__blmachine_key(const perf_workload *w, char *buf, size_t len);

#endif
