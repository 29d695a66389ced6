/* unit_blocker.c — the blocking kernel checked without a GPU, by NVIDIA's assembler. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "worker/device/blocker.h"
#include "selftest.h"

/* The blocking kernel is PTX the driver compiles at run time: without a GPU
 * the next best check is that NVIDIA's assembler accepts it for sm_90. */
ST_TEST(blocking_kernel_ptx_assembles)
{
  char src[] = "/tmp/perfgate-ptx-XXXXXX", cmd[1200];
  int fd = mkstemp(src);
  ST_CHECK(fd >= 0);
  const char *ptx = perf__blocker_ptx();
  ST_EQ(write(fd, ptx, strlen(ptx)), (long long)strlen(ptx));
  close(fd);
  const char *home = getenv("CUDA_HOME");
  snprintf(cmd, sizeof cmd,
           "p=$(command -v ptxas || echo %s/bin/ptxas); \"$p\" -arch=sm_90 %s -o /dev/null 2>&1",
           home && *home ? home : "/usr/local/cuda", src);
  FILE *f = popen(cmd, "r");
  char out[2000] = "";
  size_t n = f ? fread(out, 1, sizeof out - 1, f) : 0;
  out[n] = '\0';
  int status = f ? pclose(f) : -1;
  unlink(src);
  ST_CHECKF(status == 0, "ptxas rejected the blocking kernel: %s", out);
  ST_CHECK(strstr(ptx, ".entry perf__blocker_hold(") != NULL);
  ST_CHECK(strstr(ptx, "%globaltimer") != NULL); /* the timeout is real time */
}
