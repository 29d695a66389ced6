/* unit_trace.c — a workload's trace: items, JSON, Chrome export, and changes explained. */
/* Its items per iteration, JSON round trips, the Chrome trace export, and
 * what changed between two traces, each planted change explained and ordered
 * by the time it explains. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline/baseline.h"
#include "baseline/blemit.h"
#include "baseline/blyaml.h"
#include "io/jsontree.h"
#include "baseline/trace.h"
#include "selftest.h"

/* One iteration's kernel, copy or sync added calls times (us: its time). */
static void add(perf__trace *t, perf__trace_kind k, const char *name, const char *shape,
                const char *where, double bytes, double us, int calls)
{
  for (int i = 0; i < calls; i++) {
    unsigned long long s = 1000000ull * (unsigned long long)(t->nevents + 1);
    ST_EQ(perf__trace_add(t, &(perf__trace_key){k, name, shape, where}, bytes, 7, s,
                          us > 0 ? s + (unsigned long long)(us * 1e3) : 0), 0);
  }
}

#define GEMM_H "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_kernel"
#define GEMM_A "ampere_sgemm_128x64_nn"
#define GRID "grid 264x1x1, block 384x1x1"

/* The workload of the examples: a GEMM, a reduction, an element-wise
 * kernel and a copy of its result back, two calls traced. */
static void base(perf__trace *t, const char *gemm, double gemm_us, int reduces, double ew_us)
{
  memset(t, 0, sizeof *t);
  for (int call = 0; call < 2; call++) {
    add(t, PERF__TRACE_KERNEL, gemm, GRID, "", 0, gemm_us, 1);
    add(t, PERF__TRACE_KERNEL, "void reduce<float>(float const*, float*, int)", "grid 1x1x1, block 256x1x1",
        "", 0, 3, reduces);
    add(t, PERF__TRACE_KERNEL, "ew4_f32(float*, unsigned long)", "grid 65536x1x1, block 256x1x1", "",
        0, ew_us, 1);
    add(t, PERF__TRACE_COPY, "cudaMemcpyAsync", "device→host, pinned", "train.c:60 (step)", 4096, 2, 1);
  }
  perf__trace_finish(t, 2);
}

/* Explains now against was; the text in out[8192]. Returns the changes. */
static int explain(const perf__trace *was, const perf__trace *now, double was_us, double now_us,
                   char *out)
{
  return perf__trace_explain(&(perf__trace_side){was, was_us * 1e-6, 1980},
                             &(perf__trace_side){now, now_us * 1e-6, 1980}, "  ", out, 8192);
}

ST_TEST(trace_items_are_per_iteration_and_by_device_time)
{
  perf__trace t;
  base(&t, GEMM_H, 41, 1, 12);
  ST_EQ(t.calls, 2);
  ST_EQ(t.n, 4);
  ST_STR(t.items[0].name, GEMM_H);
  ST_NEAR(t.items[0].count, 1, 0);
  ST_NEAR(t.items[0].device_s, 41e-6, 1e-12);
  ST_STR(t.items[1].name, "ew4_f32(float*, unsigned long)");
  ST_NEAR(t.items[3].bytes, 4096, 0);
  ST_NEAR(perf__trace_device_s(&t), 58e-6, 1e-12);
  ST_EQ(t.nevents, 8);
  ST_EQ(t.events[0].item, 0); /* remapped after the sort: the GEMM is item 0 */
  perf__trace_free(&t);
}

ST_TEST(trace_json_round_trips)
{
  perf__trace t, back;
  char err[200];
  base(&t, GEMM_H, 41, 1, 12);
  char *a = perf__trace_text(&t);
  ST_CHECK(a != NULL);
  ST_EQ(perf__trace_parse(a, &back, err, sizeof err), 0);
  char *b = perf__trace_text(&back);
  ST_CHECKF(b && !strcmp(a, b), "%s\n%s", a, b ? b : "");
  free(a), free(b);
  perf__trace_free(&back);
  ST_EQ(perf__trace_parse("{\"calls\": 2, \"items\": []}", &back, err, sizeof err), PERF__EPROTO);
  ST_CHECKF(strstr(err, "names or dropped"), "%s", err);
  ST_EQ(perf__trace_parse("{\"calls\": 0, \"why_not\": \"ncu holds CUPTI\"}", &back, err, sizeof err), 0);
  ST_STR(back.why_not, "ncu holds CUPTI");
  perf__trace_free(&t);
}

/* An algorithm swap: cuBLAS's Hopper GEMM replaced by an Ampere SIMT one;
 * the names share "gemm", so they are paired, with the time it explains of
 * the measured change. */
ST_TEST(trace_explains_a_replaced_kernel)
{
  perf__trace was, now;
  char out[8192];
  base(&was, GEMM_H, 41, 1, 12);
  base(&now, GEMM_A, 82, 1, 12);
  ST_EQ(explain(&was, &now, 60, 104, out), 1);
  ST_STR(out, "  kernel `" GEMM_H "` replaced by `" GEMM_A "` (+41.00 us of +44.00 us)");
  perf__trace_free(&was), perf__trace_free(&now);
}

ST_TEST(trace_explains_more_launches_and_a_slower_kernel_largest_first)
{
  perf__trace was, now;
  char out[8192];
  base(&was, GEMM_H, 41, 1, 12);
  base(&now, GEMM_H, 41, 2, 19);
  ST_EQ(explain(&was, &now, 60, 70, out), 2);
  ST_STR(out, "  kernel `ew4_f32(float*, unsigned long)`: 12.00 us -> 19.00 us a launch (+7.000 us)\n"
              "  kernel `void reduce<float>(float const*, float*, int)`: 2 launches an iteration, "
              "was 1 (+3.000 us)");
  perf__trace_free(&was), perf__trace_free(&now);
}

ST_TEST(trace_explains_a_new_copy_and_a_new_sync_with_their_sites)
{
  perf__trace was, now;
  char out[8192];
  base(&was, GEMM_H, 41, 1, 12);
  base(&now, GEMM_H, 41, 1, 12);
  now.calls = 0; /* unfinished again: add to it, then finish over 1 call */
  for (size_t i = 0; i < now.n; i++) now.items[i].count *= 2, now.items[i].device_s *= 2,
                                    now.items[i].bytes *= 2;
  add(&now, PERF__TRACE_COPY, "cudaMemcpy", "host→device, pageable", "train.c:88 (step)",
      4 << 20, 1200, 2);
  add(&now, PERF__TRACE_SYNC, "cudaStreamSynchronize", "explicit", "train.c:91 (step)", 0, 0, 2);
  perf__trace_finish(&now, 2);
  ST_EQ(explain(&was, &now, 60, 1300, out), 2);
  ST_STR(out, "  1 new cudaMemcpy host→device, pageable 4.0 MiB at train.c:88 (step) (+1.200 ms)\n"
              "  1 new host sync cudaStreamSynchronize (explicit) at train.c:91 (step) an "
              "iteration (host time, not in the GPU's trace)");
  ST_EQ(explain(&now, &was, 1300, 60, out), 2); /* and back: gone */
  ST_CHECKF(strstr(out, "cudaMemcpy host→device, pageable 4.0 MiB at train.c:88 (step) gone "
                        "(-1.200 ms)"), "%s", out);
  perf__trace_free(&was), perf__trace_free(&now);
}

/* A copy whose line moved (an edit above it) is the same copy. */
ST_TEST(trace_a_call_site_that_moved_is_the_same_site)
{
  perf__trace was = {0}, now = {0};
  char out[8192];
  add(&was, PERF__TRACE_COPY, "cudaMemcpy", "host→device, pageable", "train.c:88 (step)", 4 << 20, 1200, 1);
  add(&now, PERF__TRACE_COPY, "cudaMemcpy", "host→device, pageable", "train.c:91 (step)", 4 << 20, 1210, 1);
  perf__trace_finish(&was, 1), perf__trace_finish(&now, 1);
  ST_EQ(explain(&was, &now, 1300, 1310, out), 0);
  ST_CHECKF(strstr(out, "the trace cannot explain it"), "%s", out);
  perf__trace_free(&was), perf__trace_free(&now);
}

/* The same kernels as often, each within 10 %: the trace cannot say; the
 * line gives both SM clocks. */
ST_TEST(trace_says_when_it_cannot_explain)
{
  perf__trace was, now;
  char out[8192];
  base(&was, GEMM_H, 41, 1, 12);
  base(&now, GEMM_H, 42, 1, 12.2);
  ST_EQ(perf__trace_explain(&(perf__trace_side){&was, 60e-6, 1980},
                            &(perf__trace_side){&now, 66e-6, 1755}, "  ", out, sizeof out), 0);
  ST_CHECKF(strstr(out, "the trace cannot explain it") && strstr(out, "SM clock 1980 MHz then, "
                                                                     "1755 MHz now"),
            "%s", out);
  perf__trace_free(&was), perf__trace_free(&now);
}

ST_TEST(trace_exports_a_chrome_trace_perfetto_opens)
{
  perf__trace t;
  char path[] = "/tmp/perfgate-trace-XXXXXX", err[200];
  base(&t, GEMM_H, 41, 1, 12);
  int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  ST_CHECK(f != NULL);
  if (!f) return;
  ST_EQ(perf__trace_export(&t, "suite.test / w", f), 0);
  fclose(f);
  perf__jsontree_node *n = perf__jsontree_read(path, err, sizeof err);
  const perf__jsontree_node *ev = n ? perf__jsontree_get(n, "traceEvents") : NULL;
  ST_CHECKF(ev && ev->n == 9, "%s", n ? "" : err); /* 8 events and the stream's name */
  const perf__jsontree_node *first = ev && ev->n ? ev->kids[0] : NULL;
  ST_CHECK(first && !strcmp(perf__jsontree_get(first, "ph")->text, "X") &&
           perf__jsontree_num(perf__jsontree_get(first, "dur"), 0) == 41);
  perf__jsontree_free(n);
  unlink(path);
  perf__trace_free(&t);
}

/* A baseline entry keeps its trace as JSON text (schema 2), written and
 * read back as it was; one that is not a trace is refused naming it. */
ST_TEST(trace_in_a_baseline_entry_round_trips)
{
  perf__trace t;
  perf__baseline a, b;
  char dir[] = "/tmp/perfgate-bltrace-XXXXXX", path[200], err[400];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/x.yaml", dir);
  base(&t, GEMM_H, 41, 1, 12);
  perf__baseline_init(&a);
  perf__baseline_entry e = {.test = "s.t", .workload = "w", .clock = "events", .median_s = 6e-5,
                            .spread_s = 1e-7, .samples = 20, .tolerance = 0.05,
                            .recorded = "2026-11-26"};
  e.trace = perf__trace_text(&t);
  ST_EQ(perf__baseline_put_entry(&a, &e), 0);
  ST_EQ(perf__blemit_save(path, &a, err, sizeof err), 0);
  ST_EQ(perf__blyaml_load(path, &b, err, sizeof err), 0);
  const perf__baseline_entry *x = perf__baseline_find(&b, "s.t", "w");
  ST_CHECKF(x && x->trace && !strcmp(x->trace, e.trace), "%s", x && x->trace ? x->trace : "(none)");
  free(e.trace);
  perf__baseline_free(&a), perf__baseline_free(&b);
  static const char bad[] = "schema: 2\nentries:\n- {test: t, workload: w, clock: wall, median_s: 1, "
                            "spread_s: 0, samples: 1, sm_clock_mhz: unknown, trace: '{\"calls\": 1}', "
                            "recorded: 2026-01-01}\n";
  ST_EQ(perf__blyaml_parse("b.yaml", (const unsigned char *)bad, strlen(bad), &b, err, sizeof err),
        PERF__EBADFILE);
  ST_CHECKF(strstr(err, "b.yaml:3:") && strstr(err, "'trace' is not a trace perfgate wrote"), "%s", err);
  perf__trace_free(&t);
  st_rmtree(dir);
}

/* ---- real H100 traces --------------------------------------------------
 * framework/tests/fixtures/traces/: the traces an H100 recorded
 * (2026-11-26, --update-baselines) of one workload, a cuBLAS SGEMM and an
 * element-wise kernel, and of that workload with one change planted each:
 * kernel (TF32 tensor-core math: cuBLAS picks another GEMM), copy (a 4 MiB
 * pageable cudaMemcpy), sync (a cudaStreamSynchronize), slow (the
 * element-wise kernel over 4x the data), launches (it runs twice). Each
 * file: {"median_s", "sm_clock_mhz", "trace"}. */

/* Loads fixture name into t, its median into *median. */
static int fixture(const char *name, perf__trace *t, double *median)
{
  char path[200], err[300];
  snprintf(path, sizeof path, "framework/tests/fixtures/traces/%s.json", name);
  perf__jsontree_node *n = perf__jsontree_read(path, err, sizeof err);
  int rc = n ? perf__trace_read(perf__jsontree_get(n, "trace"), t, err, sizeof err) : -1;
  *median = n ? perf__jsontree_num(perf__jsontree_get(n, "median_s"), 0) : 0;
  ST_CHECKF(rc == 0, "%s: %s", path, err);
  perf__jsontree_free(n);
  return rc;
}

/* The explanation of now against was (fixtures), its first line into
 * first[len]. Returns the number of changes. */
static int explain_fixtures(const char *was_name, const char *now_name, char *first, size_t len)
{
  perf__trace was, now;
  double was_s = 0, now_s = 0;
  char out[8192];
  if (fixture(was_name, &was, &was_s) || fixture(now_name, &now, &now_s)) return -1;
  int n = perf__trace_explain(&(perf__trace_side){&was, was_s, 1980},
                              &(perf__trace_side){&now, now_s, 1980}, "", out, sizeof out);
  snprintf(first, len, "%.*s", (int)strcspn(out, "\n"), out);
  perf__trace_free(&was), perf__trace_free(&now);
  return n;
}

ST_TEST(trace_explains_each_change_planted_on_an_h100)
{
  char line[2000];
  /* the baseline ran TF32 on the tensor cores, now the FFMA SGEMM: a swap */
  ST_EQ(explain_fixtures("kernel", "none", line, sizeof line), 1);
  ST_CHECKF(strstr(line, "kernel `sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize64x128x32") &&
                strstr(line, "replaced by `sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x64x8") &&
                strstr(line, "(+41.12 us of +41.09 us)"),
            "%s", line);
  ST_EQ(explain_fixtures("none", "copy", line, sizeof line), 2); /* the copy, and its host wait */
  ST_STR(line, "1 new cudaMemcpy host→device, pageable 4.0 MiB at .probe/plant/plant.c:29 (step) "
               "(+182.3 us)");
  ST_EQ(explain_fixtures("none", "sync", line, sizeof line), 1);
  ST_STR(line, "1 new host sync cudaStreamSynchronize (explicit) at .probe/plant/plant.c:30 (step) "
               "an iteration (host time, not in the GPU's trace)");
  /* the SGEMM moved 7 % between these processes: noise, not named */
  ST_EQ(explain_fixtures("none", "slow", line, sizeof line), 1);
  ST_STR(line, "kernel `ew_kernel(float*, unsigned long, int)`: 8.256 us -> 57.27 us a launch "
               "(+49.01 us)");
  ST_EQ(explain_fixtures("none", "launches", line, sizeof line), 1);
  ST_STR(line, "kernel `ew_kernel(float*, unsigned long, int)`: 2 launches an iteration, was 1 "
             "(+7.505 us)");
  perf__trace t;
  double median;
  if (!fixture("copy", &t, &median)) { /* the pageable copy is most of its device time */
    ST_NEAR(perf__trace_host_copy_share(&t), 182.27 / (182.27 + 56.62 + 8.54), 0.01);
    perf__trace_free(&t);
  }
  if (!fixture("none", &t, &median)) {
    ST_EQ(perf__trace_host_copy_share(&t), 0);
    perf__trace_free(&t);
  }
  ST_EQ(explain_fixtures("none", "none", line, sizeof line), 0);
  ST_CHECKF(strstr(line, "the trace cannot explain it"), "%s", line);
}
