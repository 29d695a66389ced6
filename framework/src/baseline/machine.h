/* machine.h — which machine host-only work ran on, and which baseline file is this machine's. */
/* The host's fingerprint is the CPU's model, its logical CPUs and memory; a
 * file's fingerprint is checked against it, and the directory searched for
 * this machine's file. */
#ifndef PERF_MACHINE_H
#define PERF_MACHINE_H

#include <stddef.h>

#include "baseline/baseline.h"

/* How far two hosts' memory may differ and still be one machine, as a
 * fraction of the larger: a VM reports 23.5 GiB one boot and 23.4 the
 * next, and the kernel's reserve moves with its version. */
#define PERF__MACHINE_MEMORY_TOLERANCE 0.05

/* Fills b's fingerprint with the CPU model, logical CPU count and memory.
 * Never fails (fields it cannot read say "unknown"). */
void perf__machine_host(perf__baseline *b);

/* 1 when b's fingerprint is a host's (it has PERF__BL_FP_CPUS). Never
 * fails. */
int perf__machine_is_host(const perf__baseline *b);

/* The host fields of b's fingerprint as a phrase, "Intel(R) Xeon(R)
 * Processor, 16 CPUs, 125.9 GiB" (those it has), into buf[len]. Returns
 * buf. Never fails (truncates). */
char *perf__machine_describe(const perf__baseline *b, char *buf, size_t len);

/* 1 when file's fingerprint, a host's, is another machine than now (a
 * host's, perf__machine_host): a field both hold differs, the memory by
 * more than PERF__MACHINE_MEMORY_TOLERANCE. 0 when they are one machine,
 * or file's is no host's fingerprint (a GPU's, or a hand-written one
 * without CPUs: nothing to tell them apart by). Never fails. */
int perf__machine_other(const perf__baseline *file, const perf__baseline *now);

/* "PATH is another machine's baseline file: it was recorded on <file's
 * fingerprint>; this machine is <now's>" into note[nlen] (file: the one
 * at path). Returns note. Never fails (truncates). */
char *perf__machine_say_other(const char *path, const perf__baseline *file,
                              const perf__baseline *now, char *note, size_t nlen);

/* What a baseline directory holds for this machine. */
typedef enum perf__machine_fit {
  PERF__MACHINE_NONE,  /* no file of this machine yet */
  PERF__MACHINE_OWN,   /* this machine's file */
  PERF__MACHINE_OTHER, /* the file of this machine's name is another machine's */
  PERF__MACHINE_BAD    /* a file that cannot be read or is malformed */
} perf__machine_fit;

/* This machine's baseline file in dir, for now (a GPU's fingerprint, or
 * perf__machine_host's): the file perf__baseline_path names, or for a host
 * the one under the name host files had before (perf__baseline_path_before)
 * where that one is this machine's and the other is missing or another
 * machine's. Loads it into *b (initialised; OTHER: the other machine's file,
 * to be freed as well) and its path into path[plen] (NONE: the name an
 * update creates). note[nlen] says what a user is told: OWN under the name
 * host files had before, that; NONE, whether a file under that name is
 * another machine's; OTHER, "PATH is another machine's baseline file: it was
 * recorded on ...; this machine is ..."; BAD, the loader's error. Never fails
 * otherwise (out of memory: BAD). */
perf__machine_fit perf__machine_load(const char *dir, const perf__baseline *now, perf__baseline *b,
                                     char *path, size_t plen, char *note, size_t nlen);

#endif
