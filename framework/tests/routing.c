/* routing.c — where a workload's GPU work goes, end to end. */
/* The fixture's route.* tests give a right verdict or an ERROR naming the
 * work (GPU); host work never looks (CPU). */
#include <stdio.h>
#include <string.h>

#include "selftest.h"

#define LINE 2048

/* The lines test name printed: from its result line to the next one. */
static void block_of(const st_run *r, const char *name, char *out, size_t len)
{
  char line[LINE];
  out[0] = '\0';
  if (!st_outcome(r, name, line, sizeof line)[0]) return;
  const char *p = strstr(r->out, line), *end = p ? strchr(p, '\n') : NULL;
  while (end) {
    const char *next = end + 1;
    if (!*next || !strncmp(next, "PASS ", 5) || !strncmp(next, "FAIL ", 5) ||
        !strncmp(next, "ERROR ", 6) || !strncmp(next, "SKIP ", 5))
      break;
    end = strchr(next, '\n');
  }
  size_t n = end ? (size_t)(end - p) : strlen(p);
  snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), p);
}

/* An ERROR before any sample: the test's lines hold no verdict line. */
static void refused(const st_run *r, const char *name, const char *want)
{
  char b[8192];
  st_expect(r, name, "ERROR", want);
  block_of(r, name, b, sizeof b);
  ST_CHECKF(b[0] && !strstr(b, "ABBA round") && !strstr(b, " per sample"),
            "%s took samples:\n%s", name, b);
}

/* A PASS whose lines hold all of the given texts. */
static void passed(const st_run *r, const char *name, const char *const *texts)
{
  char b[8192];
  st_expect(r, name, "PASS", NULL);
  block_of(r, name, b, sizeof b);
  for (; *texts; texts++) ST_CHECKF(strstr(b, *texts) != NULL, "%s lacks '%s':\n%s", name, *texts, b);
}

ST_TEST(routing_each_gpu_case_gets_a_right_verdict_or_an_error)
{
  st_run r;
  st_exec(&r, "", "--verbose --filter='route.*'");
  if (!st_have_gpu()) {
    ST_CHECK(st_count(r.out, "skipped: no CUDA device (") == 16);
    ST_EQ(r.status, 0);
    st_run_free(&r);
    return;
  }
  const char *undeclared[] = {
      "waits for the device: the workloads queue work on streams they did not declare",
      "small: queues kernels on the legacy default stream (stream 0) from cublasSgemm",
      "a stream it did not declare: the wall clock waits for the device", NULL};
  passed(&r, "route.cublas_on_legacy_stream_no_stream_declared", undeclared);
  const char *own[] = {"small: queues kernels on stream 0x", "(non-blocking) from cublasSgemm",
                       NULL};
  passed(&r, "route.cublas_on_own_stream_no_stream_declared", own);
  refused(&r, "route.cublas_on_other_stream_than_declared",
          "workload 'small' queues kernels on stream 0x");
  st_expect(&r, "route.cublas_on_other_stream_than_declared", "ERROR",
            "but declares .stream = stream 0x");
  st_expect(&r, "route.cublas_on_other_stream_than_declared", "ERROR", "cublasSetStream");
  refused(&r, "route.cublas_on_legacy_stream_declared_nonblocking",
          "queues kernels on the legacy default stream (stream 0) from cublasSgemm");
  const char *control[] = {"(events clock, medians)", NULL};
  passed(&r, "route.cublas_on_declared_stream", control);
  refused(&r, "route.short_kernel_on_undeclared_stream",
          "from cudaLaunchKernel at framework/tests/fixtures/route.c:");
  const char *short_undeclared[] = {"one: queues kernels on stream 0x",
                                    ": the wall clock waits for the device", NULL};
  passed(&r, "route.short_kernel_no_stream_declared", short_undeclared);
  const char *joined[] = {"(events clock, medians)", "(device clock, medians)", NULL};
  passed(&r, "route.forked_and_joined_stream", joined);
  st_expect(&r, "route.joined_but_not_forked_device_clock", "ERROR",
            "does not wait for the start of its declared stream");
  char b[8192];
  block_of(&r, "route.joined_but_not_forked_device_clock", b, sizeof b);
  ST_CHECKF(strstr(b, "FASTER(one, four, 2)") && strstr(b, ": PASS: one"), "%s", b);
  const char *blocking[] = {"(events clock, medians)", NULL};
  passed(&r, "route.legacy_copy_declared_blocking_stream", blocking);
  passed(&r, "route.sync_copy_to_host_waits_for_a_blocking_stream", blocking);
  refused(&r, "route.pool_free_is_no_wait", "workload 'one' queues kernels on stream 0x");
  const char *per_thread[] = {"kernels on the per-thread default stream",
                              "(events clock, medians)", NULL};
  passed(&r, "route.per_thread_stream_with_events_on_stream_0", per_thread);
  refused(&r, "route.legacy_copy_declared_nonblocking_stream",
          "copies on the legacy default stream (stream 0) from cudaMemcpyAsync at "
          "framework/tests/fixtures/route.c:");
  const char *host[] = {"a: GPU work in 2 calls: none; the wall clock waits for nothing",
                        "(wall clock, medians)", NULL};
  passed(&r, "route.host_work_in_a_cuda_process", host);
  refused(&r, "route.device_clock_on_host_work", "queued no GPU work in 2 calls");
  ST_EQ(r.status, 1);
  st_run_free(&r);
}

/* CUPTI held by another tool: declared streams are trusted and say so, the
 * wall clock waits for the device; never a silent number. */
ST_TEST(routing_without_cupti_says_it_did_not_look)
{
  st_run r;
  st_exec_without_cupti(&r, "--filter='route.cublas_on_declared_stream:route.cublas_on_legacy_stream_no*'");
  if (!st_have_gpu()) {
    ST_CHECK(st_count(r.out, "skipped: no CUDA device (") == 2);
    st_run_free(&r);
    return;
  }
  const char *trusted[] = {"(events clock, where GPU work goes was not checked; medians)", NULL};
  passed(&r, "route.cublas_on_declared_stream", trusted);
  const char *waited[] = {"(wall clock, waits for the device: where GPU work goes was not "
                          "checked; medians)", NULL};
  passed(&r, "route.cublas_on_legacy_stream_no_stream_declared", waited);
  ST_EQ(st_count(r.out, "where workloads queue their GPU work cannot be checked"), 1);
  ST_CHECK(strstr(r.out, "another tool") != NULL);
  st_run_free(&r);
}

/* A process that never made a CUDA context cannot have queued GPU work:
 * host workloads are not looked at (no CUPTI, no device sync). */
ST_TEST(routing_host_work_without_cuda_is_not_looked_at)
{
  st_run r;
  char line[LINE];
  st_exec(&r, "", "--verbose --filter='host.four_x_work_is_2x_faster'");
  st_expect(&r, "host.four_x_work_is_2x_faster", "PASS", NULL);
  ST_CHECK(st_line_with(&r, "a: no GPU work (no CUDA context in the process); the wall "
                        "clock waits for nothing", NULL, line, sizeof line));
  ST_CHECK(!strstr(r.out, "cannot be checked"));
  st_run_free(&r);
}
