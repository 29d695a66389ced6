/* unit_machine.c — a host's baseline file: how it is named, matched and chosen. */
/* Named by CPU model and count, matched when the memory is within a
 * tolerance, and chosen from a directory for a run. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline/baseline.h"
#include "baseline/blemit.h"
#include "baseline/blyaml.h"
#include "baseline/machine.h"
#include "selftest.h"

/* A host fingerprint into b (initialised): model, CPUs, memory in GiB
 * (NULL: that field left out). */
static void host(perf__baseline *b, const char *model, const char *cpus, const char *gib)
{
  perf__baseline_init(b);
  if (model) perf__baseline_set_fp(b, "name", model);
  if (cpus) perf__baseline_set_fp(b, "cpus", cpus);
  if (gib) perf__baseline_set_fp(b, "memory_gib", gib);
}

/* Two machines with one generic model name and 16 and 2 CPUs have a file
 * each; the name host files had before (the model alone) is known for a
 * host, and a GPU's file keeps its one name. */
ST_TEST(machine_host_files_are_named_by_model_and_cpu_count)
{
  perf__baseline a, b, gpu;
  char pa[300], pb[300], before[300];
  host(&a, "Intel(R) Xeon(R) Processor", "16", "125.9");
  host(&b, "Intel(R) Xeon(R) Processor", "2", "23.5");
  ST_STR(perf__baseline_path("baselines", &a, pa, sizeof pa),
         "baselines/intel-r-xeon-r-processor-16-cpus.yaml");
  ST_STR(perf__baseline_path("baselines", &b, pb, sizeof pb),
         "baselines/intel-r-xeon-r-processor-2-cpus.yaml");
  ST_EQ(perf__baseline_path_before("baselines", &a, before, sizeof before), 1);
  ST_STR(before, "baselines/intel-r-xeon-r-processor.yaml");
  perf__baseline_init(&gpu);
  perf__baseline_set_fp(&gpu, "name", "NVIDIA H100 80GB HBM3");
  perf__baseline_set_fp(&gpu, "memory_gib", "79.2");
  ST_STR(perf__baseline_path("b", &gpu, pa, sizeof pa), "b/nvidia-h100-80gb-hbm3.yaml");
  ST_EQ(perf__baseline_path_before("b", &gpu, before, sizeof before), 0);
  ST_STR(before, "");
  /* a CPU count that is not a whole number from 1 names no count */
  perf__baseline_set_fp(&b, "cpus", "unknown");
  ST_STR(perf__baseline_path("b", &b, pb, sizeof pb), "b/intel-r-xeon-r-processor.yaml");
  perf__baseline_set_fp(&b, "cpus", "0");
  ST_STR(perf__baseline_path("b", &b, pb, sizeof pb), "b/intel-r-xeon-r-processor.yaml");
  /* this process's host: a whole count, the model's slug before it */
  perf__baseline me;
  char slug[80], want[300];
  perf__baseline_init(&me);
  perf__machine_host(&me);
  perf__baseline_slug(perf__baseline_model(&me), slug, sizeof slug);
  snprintf(want, sizeof want, "d/%s-%ld-cpus.yaml", slug, sysconf(_SC_NPROCESSORS_ONLN));
  ST_STR(perf__baseline_path("d", &me, pa, sizeof pa), want);
  ST_EQ(perf__machine_is_host(&me), 1);
  ST_EQ(perf__machine_is_host(&gpu), 0);
  perf__baseline_free(&a), perf__baseline_free(&b), perf__baseline_free(&gpu), perf__baseline_free(&me);
}

/* The host's fingerprint decides: model and CPUs as written, memory within
 * PERF__MACHINE_MEMORY_TOLERANCE (23.5 vs 23.4 GiB is one VM); a field a
 * file lacks is not compared, and a file with no CPUs (a GPU's, or written
 * by hand) is no host's to compare. */
ST_TEST(machine_fingerprints_compare_memory_within_a_tolerance)
{
  static const struct {
    const char *model, *cpus, *gib;
    int other;
  } files[] = {
      {"Intel(R) Xeon(R) Processor", "2", "23.5", 0},
      {"Intel(R) Xeon(R) Processor", "2", "23.4", 0},
      {"Intel(R) Xeon(R) Processor", "2", "24.6", 0},  /* 4.5 % */
      {"Intel(R) Xeon(R) Processor", "2", "24.8", 1},  /* 5.2 % */
      {"Intel(R) Xeon(R) Processor", "2", "125.9", 1},
      {"Intel(R) Xeon(R) Processor", "16", "23.5", 1},
      {"AMD EPYC", "2", "23.5", 1},
      {"Intel(R) Xeon(R) Processor", "2", "unknown", 1},
      {"Intel(R) Xeon(R) Processor", "2", NULL, 0},    /* not recorded: not compared */
      {"AMD EPYC", NULL, "125.9", 0},                  /* no CPUs: no host's fingerprint */
  };
  perf__baseline now;
  host(&now, "Intel(R) Xeon(R) Processor", "2", "23.5");
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    perf__baseline f;
    host(&f, files[i].model, files[i].cpus, files[i].gib);
    ST_CHECKF(perf__machine_other(&f, &now) == files[i].other, "case %zu", i);
    perf__baseline_free(&f);
  }
  char buf[200], note[600];
  perf__baseline was;
  host(&was, "Intel(R) Xeon(R) Processor", "16", "125.9");
  ST_STR(perf__machine_describe(&was, buf, sizeof buf), "Intel(R) Xeon(R) Processor, 16 CPUs, 125.9 GiB");
  ST_STR(perf__machine_say_other("b/x.yaml", &was, &now, note, sizeof note),
         "b/x.yaml is another machine's baseline file: it was recorded on Intel(R) Xeon(R) "
         "Processor, 16 CPUs, 125.9 GiB; this machine is Intel(R) Xeon(R) Processor, 2 CPUs, 23.5 GiB");
  perf__baseline_free(&was);
  perf__baseline_free(&now);
}

/* Writes a valid file at dir/name with fingerprint fp and one entry. */
static void write_file(const char *dir, const char *name, const perf__baseline *fp)
{
  perf__baseline b;
  char path[400], err[400];
  perf__baseline_init(&b);
  for (size_t i = 0; i < fp->nfp; i++) perf__baseline_set_fp(&b, fp->fp[i].key, fp->fp[i].value);
  perf__baseline_entry e = {.test = "t.t", .workload = "w", .clock = "wall", .median_s = 1e-3,
                            .samples = 8, .tolerance = 0.05, .recorded = "2026-11-28"};
  snprintf(e.workload, sizeof e.workload, "%s", name); /* which file was read */
  ST_EQ(perf__baseline_put_entry(&b, &e), 0);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  ST_EQ(perf__blemit_save(path, &b, err, sizeof err), 0);
  perf__baseline_free(&b);
}

/* What perf__machine_load finds in dir for now: the fit, the file's path
 * (after dir/) into got, and the note into note. */
static perf__machine_fit find(const char *dir, const perf__baseline *now, char *got, char *note)
{
  perf__baseline b;
  char path[600];
  perf__machine_fit fit = perf__machine_load(dir, now, &b, path, sizeof path, note, 1200);
  snprintf(got, 200, "%s", path + strlen(dir) + 1);
  if (fit == PERF__MACHINE_OWN || fit == PERF__MACHINE_OTHER)
    ST_CHECKF(b.nentries == 1 && !strcmp(b.entries[0].workload, got), "%s read, not %s",
              b.nentries ? b.entries[0].workload : "nothing", got);
  perf__baseline_free(&b);
  return fit;
}

/* Which file of a directory is this machine's: its own name first, or the
 * name host files had before where that one is this machine's and its own
 * is missing or another machine's; another machine's file of its name is
 * OTHER (never read as its own), one under the old name NONE with a note. */
ST_TEST(machine_load_reads_this_machines_file_and_never_another)
{
  char dir[] = "/tmp/perfgate-machine-XXXXXX", got[200], note[1200], path[600];
  ST_CHECK(mkdtemp(dir) != NULL);
  perf__baseline now, same, big;
  host(&now, "Intel(R) Xeon(R) Processor", "2", "23.5");
  host(&same, "Intel(R) Xeon(R) Processor", "2", "23.4");
  host(&big, "Intel(R) Xeon(R) Processor", "2", "125.9");
  const char *mine = "intel-r-xeon-r-processor-2-cpus.yaml", *old = "intel-r-xeon-r-processor.yaml";
  ST_EQ(find(dir, &now, got, note), PERF__MACHINE_NONE);
  ST_STR(got, mine);
  ST_STR(note, "");
  write_file(dir, old, &big); /* another machine's under the old name: not read */
  ST_EQ(find(dir, &now, got, note), PERF__MACHINE_NONE);
  ST_STR(got, mine);
  ST_CHECKF(strstr(note, "/intel-r-xeon-r-processor.yaml is another machine's baseline file: it "
                         "was recorded on Intel(R) Xeon(R) Processor, 2 CPUs, 125.9 GiB; this "
                         "machine is Intel(R) Xeon(R) Processor, 2 CPUs, 23.5 GiB"), "%s", note);
  write_file(dir, mine, &big); /* another machine's under this machine's name */
  ST_EQ(find(dir, &now, got, note), PERF__MACHINE_OTHER);
  ST_STR(got, mine);
  ST_CHECKF(strstr(note, "-2-cpus.yaml is another machine's baseline file"), "%s", note);
  write_file(dir, old, &same); /* this machine's under the old name: read */
  ST_EQ(find(dir, &now, got, note), PERF__MACHINE_OWN);
  ST_STR(got, old);
  ST_CHECKF(strstr(note, "the name host files had before"), "%s", note);
  write_file(dir, mine, &same); /* its own name first */
  ST_EQ(find(dir, &now, got, note), PERF__MACHINE_OWN);
  ST_STR(got, mine);
  ST_STR(note, "");
  snprintf(path, sizeof path, "%s/%s", dir, mine);
  FILE *f = fopen(path, "w");
  ST_CHECK(f && fputs("schema: 9\n", f) >= 0 && fclose(f) == 0);
  ST_EQ(find(dir, &now, got, note), PERF__MACHINE_BAD);
  ST_CHECKF(strstr(note, "unknown schema version '9'"), "%s", note);
  /* a GPU's fingerprint: its one name, never compared as a host's */
  perf__baseline gpu;
  perf__baseline_init(&gpu);
  perf__baseline_set_fp(&gpu, "name", "NVIDIA H100 80GB HBM3");
  write_file(dir, "nvidia-h100-80gb-hbm3.yaml", &big);
  ST_EQ(find(dir, &gpu, got, note), PERF__MACHINE_OWN);
  ST_STR(got, "nvidia-h100-80gb-hbm3.yaml");
  perf__baseline_free(&gpu), perf__baseline_free(&now), perf__baseline_free(&same), perf__baseline_free(&big);
  st_rmtree(dir);
}

/* Every shipped baseline file has the name its fingerprint gives it, so
 * that a run on the machine it describes reads it (the host file was
 * intel-r-xeon-r-processor.yaml: any host of that model name took it). */
ST_TEST(machine_shipped_files_have_the_names_their_fingerprints_give)
{
  FILE *p = popen("ls baselines/*.yaml", "r");
  char path[600], want[600], err[400];
  int files = 0;
  ST_CHECK(p != NULL);
  while (p && fscanf(p, "%599s", path) == 1) {
    perf__baseline b;
    ST_CHECKF(perf__blyaml_load(path, &b, err, sizeof err) == 0, "%s", err);
    perf__baseline_path("baselines", &b, want, sizeof want);
    ST_CHECKF(!strcmp(path, want), "%s: its fingerprint names it %s", path, want);
    files++;
    perf__baseline_free(&b);
  }
  if (p) pclose(p);
  ST_CHECKF(files >= 2, "%d files in baselines/ (run from the repository's root)", files);
}
