/* unit_workcount.c — one call's GPU work counted: alike twice; twice the blocks, twice as much. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#include "util/status.h"
#include "selftest.h"
#include "worker/device/gpu.h"
#include "worker/sync/cupti.h"
#include "worker/sync/workcount.h"
#include "fixtures/store_ptx.h"


enum { THREADS = 256, WORDS = 1 << 20 };

/* The counted work: one launch of the store kernel over n words. */
typedef struct store {
  cudaLibrary_t lib;
  cudaKernel_t kernel;
  unsigned *words; /* room for 2 * WORDS */
  unsigned n;
  cudaError_t err; /* the first launch error */
} store;

/* One call: launches the kernel over st->n words, noting a launch error. */
static void launch(void *arg)
{
  store *st = arg;
  void *args[] = {&st->words, &st->n};
  cudaError_t e = cudaLaunchKernel((const void *)st->kernel, (dim3){st->n / THREADS, 1, 1},
                                   (dim3){THREADS, 1, 1}, args, 0, 0);
  if (e && !st->err) st->err = e;
}

/* Makes the context, loads the kernel and its words, and runs it once
 * (warm). Returns 0, or perf__gpu_explain's code with why. */
static int prepare(store *st, char *why, size_t len)
{
  cudaError_t e = cudaFree(0);
  if (e) return perf__gpu_explain(e, "cudaFree", why, len);
  e = cudaLibraryLoadData(&st->lib, store_ptx, NULL, NULL, 0, NULL, NULL, 0);
  if (e) return perf__gpu_explain(e, "cudaLibraryLoadData", why, len);
  e = cudaLibraryGetKernel(&st->kernel, st->lib, "perf_wc_store");
  if (!e) e = cudaMalloc((void **)&st->words, 2 * (size_t)WORDS * sizeof(unsigned));
  if (e) return perf__gpu_explain(e, "cudaLibraryGetKernel or cudaMalloc", why, len);
  st->n = WORDS;
  launch(st);
  if (st->err) return perf__gpu_explain(st->err, "cudaLaunchKernel", why, len);
  return perf__gpu_explain(cudaDeviceSynchronize(), "cudaDeviceSynchronize", why, len);
}

/* Frees what prepare made. */
static void release(store *st)
{
  if (st->words) ST_EQ(cudaFree(st->words), cudaSuccess);
  if (st->lib) ST_EQ(cudaLibraryUnload(st->lib), cudaSuccess);
}

/* The same call counts the same instructions twice; twice the blocks count
 * twice the instructions. Without a GPU the count says there is none. */
ST_TEST(workcount_counts_one_call_the_same_twice_and_double_work_double)
{
  char why[600] = "", cwhy[600] = "";
  store st = {0};
  perf__workcount a, b, twice;
  int err = prepare(&st, why, sizeof why);
  if (err == PERF__ENODEV) {
    ST_EQ(perf__workcount_run(launch, &st, &a, cwhy, sizeof cwhy), PERF__ENODEV);
    ST_CHECKF(cwhy[0] != '\0' && a.passes == 0, "%d passes: %s", a.passes, cwhy);
    st_skip("no CUDA device (%s)", why);
    return;
  }
  ST_CHECKF(err == 0, "%s", why);
  if (err) return;
  err = perf__workcount_run(launch, &st, &a, cwhy, sizeof cwhy);
  if (err == PERF__ENODEV || strstr(cwhy, "NVreg_RestrictProfilingToAdminUsers")) {
    release(&st);
    st_skip("the GPU's counters cannot be read here (%s)", cwhy);
    return;
  }
  ST_CHECKF(err == 0, "%s", cwhy);
  ST_EQ(perf__workcount_run(launch, &st, &b, cwhy, sizeof cwhy), 0);
  st.n = 2 * WORDS;
  ST_EQ(perf__workcount_run(launch, &st, &twice, cwhy, sizeof cwhy), 0);
  ST_EQ(st.err, cudaSuccess);
  ST_CHECKF(a.insts > 0 && a.passes >= 1, "%.0f instructions in %d passes", a.insts, a.passes);
  ST_CHECKF(a.insts == b.insts, "%.0f then %.0f instructions", a.insts, b.insts);
  ST_CHECKF(a.dram_read >= 0 && a.setup_s > 0 && a.count_s > 0, "%.0f B read, %g s, %g s",
            a.dram_read, a.setup_s, a.count_s);
  double ratio = a.insts > 0 ? twice.insts / a.insts : 0;
  ST_CHECKF(ratio >= 1.9 && ratio <= 2.1, "%.0f then %.0f instructions for twice the words",
            a.insts, twice.insts);
  release(&st);
}

/* Never called: a count inside a sync check must not run the work. */
static void never(void *arg) { (*(int *)arg)++; }

/* CUPTI's subscriber's handler for the test below: sees nothing. */
static void ignore(CUpti_CallbackDomain dom, CUpti_CallbackId id, const CUpti_CallbackData *cd)
{
  (void)dom, (void)id, (void)cd;
}

/* While a sync check holds CUPTI, a count refuses and runs nothing. */
ST_TEST(workcount_refuses_to_count_inside_a_sync_check)
{
  char why[400] = "";
  int calls = 0;
  if (perf__cupti_attach(ignore, why, sizeof why)) {
    st_skip("CUPTI cannot attach here (%s)", why);
    return;
  }
  perf__workcount w = {.insts = 1, .passes = 1};
  int err = perf__workcount_run(never, &calls, &w, why, sizeof why);
  perf__cupti_detach();
  ST_EQ(err, PERF__EIO);
  ST_CHECKF(strstr(why, "a sync check is attached") != NULL, "%s", why);
  ST_EQ(calls, 0);
  ST_CHECK(w.insts == 0 && w.passes == 0);
}

/* A sync check finalizes CUPTI when it detaches; a count after it still
 * counts (on the H200 the range profiler then failed to initialize until
 * a count took its own hold on CUPTI). */
ST_TEST(workcount_counts_after_a_sync_check_detached_cupti)
{
  char why[600] = "", cwhy[600] = "";
  store st = {0};
  perf__workcount c;
  int err = prepare(&st, why, sizeof why);
  if (err) {
    ST_EQ(err, PERF__ENODEV);
    st_skip("no CUDA device (%s)", why);
    return;
  }
  ST_EQ(perf__cupti_attach(ignore, why, sizeof why), 0);
  perf__cupti_detach();
  err = perf__workcount_run(launch, &st, &c, cwhy, sizeof cwhy);
  if (err == PERF__ENODEV || strstr(cwhy, "NVreg_RestrictProfilingToAdminUsers")) {
    release(&st);
    st_skip("the GPU's counters cannot be read here (%s)", cwhy);
    return;
  }
  ST_CHECKF(err == 0 && c.insts > 0, "%d, %.0f instructions: %s", err, c.insts, cwhy);
  ST_CHECK(!perf__cupti_attached()); /* the count's hold ended with it */
  release(&st);
}
