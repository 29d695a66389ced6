/* machine.c — which machine host-only work ran on, and which baseline file is this machine's. */
/* The host's fingerprint is the CPU's model, its logical CPUs and memory; a
 * file's fingerprint is checked against it, and the directory searched for
 * this machine's file. */
#define _GNU_SOURCE
#include "baseline/machine.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline/blyaml.h"
#include "util/status.h"

/* The "model name" line of /proc/cpuinfo, or "unknown". */
static void cpu_model(char *out, size_t len)
{
  char line[512];
  FILE *f = fopen("/proc/cpuinfo", "r");
  snprintf(out, len, "unknown");
  while (f && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (!strncmp(line, "model name", 10) && colon) {
      colon += 1 + (colon[1] == ' ');
      colon[strcspn(colon, "\n")] = '\0';
      snprintf(out, len, "%s", colon);
      break;
    }
  }
  if (f) fclose(f);
}

/* The online logical CPUs. Never fails. */
static void cpu_count(char *out, size_t len)
{
  snprintf(out, len, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
}

/* The memory in GiB, one decimal. Never fails. */
static void memory(char *out, size_t len)
{
  snprintf(out, len, "%.1f",
           (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE) / (1 << 30));
}

/* The host fingerprint, one row per field: its key, how it is read, how a
 * phrase names it (printf, its value), and how far two values may differ
 * as a fraction of the larger (0: the same text). */
static const struct host_field {
  const char *key;
  void (*read)(char *out, size_t len);
  const char *says;
  double tolerance;
} fields[] = {
    {"name", cpu_model, "%s", 0},
    {PERF__BL_FP_CPUS, cpu_count, "%s CPUs", 0},
    {"memory_gib", memory, "%s GiB", PERF__MACHINE_MEMORY_TOLERANCE},
};
enum { NFIELDS = sizeof fields / sizeof fields[0] };

/* Never fails. */
void perf__machine_host(perf__baseline *b)
{
  for (size_t i = 0; i < NFIELDS; i++) {
    char v[200];
    fields[i].read(v, sizeof v);
    perf__baseline_set_fp(b, fields[i].key, v);
  }
}

/* Never fails. */
int perf__machine_is_host(const perf__baseline *b)
{
  return perf__baseline_fp(b, PERF__BL_FP_CPUS) != NULL;
}

/* Never fails. */
char *perf__machine_describe(const perf__baseline *b, char *buf, size_t len)
{
  size_t used = 0;
  if (len) buf[0] = '\0';
  for (size_t i = 0; i < NFIELDS && used < len; i++) {
    const char *v = perf__baseline_fp(b, fields[i].key);
    if (!v) continue;
    int n = snprintf(buf + used, len - used, "%s", used ? ", " : "");
    used += n > 0 ? (size_t)n : 0;
    if (used >= len) break;
    n = snprintf(buf + used, len - used, fields[i].says, v);
    used += n > 0 ? (size_t)n : 0;
  }
  return buf;
}

/* 1 when the values a and b of field f describe one machine. */
static int same(const struct host_field *f, const char *a, const char *b)
{
  if (!strcmp(a, b)) return 1;
  char *ea, *eb;
  double x = strtod(a, &ea), y = strtod(b, &eb);
  if (!f->tolerance || *ea || *eb || ea == a || eb == b || !(x > 0) || !(y > 0)) return 0;
  return fabs(x - y) <= f->tolerance * fmax(x, y);
}

/* Never fails. */
int perf__machine_other(const perf__baseline *file, const perf__baseline *now)
{
  if (!perf__machine_is_host(file) || !perf__machine_is_host(now)) return 0;
  for (size_t i = 0; i < NFIELDS; i++) {
    const char *a = perf__baseline_fp(file, fields[i].key), *b = perf__baseline_fp(now, fields[i].key);
    if (a && b && !same(&fields[i], a, b)) return 1;
  }
  return 0;
}

/* Loads path into *b: OWN, OTHER (perf__machine_other against now), NONE
 * (no such file) or BAD with the loader's error in note[nlen]. */
static perf__machine_fit load(const char *path, const perf__baseline *now, perf__baseline *b,
                              char *note, size_t nlen)
{
  int r = perf__blyaml_load(path, b, note, nlen);
  if (r == PERF__EIO && errno == ENOENT) {
    if (nlen) note[0] = '\0'; /* no file: nothing to say */
    return PERF__MACHINE_NONE;
  }
  if (r) return PERF__MACHINE_BAD;
  return perf__machine_other(b, now) ? PERF__MACHINE_OTHER : PERF__MACHINE_OWN;
}

/* See machine.h. */
char *perf__machine_say_other(const char *path, const perf__baseline *file,
                              const perf__baseline *now, char *note, size_t nlen)
{
  char was[400], is[400];
  snprintf(note, nlen, "%s is another machine's baseline file: it was recorded on %s; this "
           "machine is %s", path, perf__machine_describe(file, was, sizeof was),
           perf__machine_describe(now, is, sizeof is));
  return note;
}

/* See machine.h. */
perf__machine_fit perf__machine_load(const char *dir, const perf__baseline *now, perf__baseline *b,
                                     char *path, size_t plen, char *note, size_t nlen)
{
  char before[4200];
  perf__baseline old;
  if (nlen) note[0] = '\0';
  perf__baseline_path(dir, now, path, plen);
  perf__machine_fit fit = load(path, now, b, note, nlen);
  if (fit == PERF__MACHINE_BAD || fit == PERF__MACHINE_OWN ||
      !perf__baseline_path_before(dir, now, before, sizeof before)) {
    if (fit == PERF__MACHINE_OTHER) perf__machine_say_other(path, b, now, note, nlen);
    return fit;
  }
  char why[700];
  perf__machine_fit was = load(before, now, &old, why, sizeof why);
  if (was == PERF__MACHINE_OWN) { /* the file under its old name, still read */
    perf__baseline_free(b);
    *b = old;
    snprintf(note, nlen, "this machine's baseline file has the name host files had before "
             "they were named by their CPU count too: %s is read (git mv it to %s to name it as "
             "an update now names a new file)", before, path);
    snprintf(path, plen, "%s", before);
    return PERF__MACHINE_OWN;
  }
  if (fit == PERF__MACHINE_OTHER) perf__machine_say_other(path, b, now, note, nlen);
  else if (was == PERF__MACHINE_OTHER) perf__machine_say_other(before, &old, now, note, nlen);
  else if (was == PERF__MACHINE_BAD) { /* no file of this name, and a malformed one of the old */
    snprintf(note, nlen, "%s", why);
    snprintf(path, plen, "%s", before);
    fit = PERF__MACHINE_BAD;
  }
  perf__baseline_free(&old);
  return fit;
}
