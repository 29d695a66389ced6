/* machine.c — what host-only work ran on: the CPU's model, its logical CPUs and memory, as a baseline fingerprint. */
#define _GNU_SOURCE
#include "base/machine.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* Never fails. */
void perf__machine_host(perf__baseline *b)
{
  char model[200];
  cpu_model(model, sizeof model);
  perf__baseline_set_fp_printf(b, "name", "%s", model);
  perf__baseline_set_fp_printf(b, "cpus", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
  perf__baseline_set_fp_printf(b, "memory_gib", "%.1f",
      (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE) / (1 << 30));
}
