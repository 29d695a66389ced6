/* python.c — the Python package's own tests (python/tests: the pytest plugin on host-only workloads), run against this build's libperfgate.so. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"

ST_TEST(python_package_tests_pass)
{
#if defined(__SANITIZE_ADDRESS__)
  st_skip("built with AddressSanitizer: the Python interpreter would need its runtime preloaded");
  return;
#endif
  if (st_shell("python3 -c 'import sys, pytest; sys.exit(int(pytest.__version__.split(\".\")[0]) < 8)' "
               ">/dev/null 2>&1")) {
    st_skip("python3 with pytest 8 or later is not installed (pip install 'pytest>=8')");
    return;
  }
  char cmd[2048], log[256];
  snprintf(log, sizeof log, "%s/python-tests.log", st_build_dir());
  snprintf(cmd, sizeof cmd,
           "PERFGATE_LIB=\"$(cd '%s' && pwd)/libperfgate.so\" "
           "PERFGATE_PERFTEST=\"$(cd \"$(dirname '%s')\" && pwd)/$(basename '%s')\" "
           "PYTHONPATH=\"$PWD/python\" python3 -m pytest python/tests -q -p no:cacheprovider >'%s' 2>&1",
           st_build_dir(), st_fixture, st_fixture, log);
  int rc = st_shell(cmd);
  char *out = st_slurp(log);
  const char *tail = out && strlen(out) > 3000 ? out + strlen(out) - 3000 : out;
  ST_CHECKF(rc == 0 && out && strstr(out, " passed") && !strstr(out, " failed"),
            "python/tests: exit %d:\n%s", rc, tail ? tail : "(no output)");
  if (out) { /* pytest's summary line: the last one */
    size_t n = strlen(out);
    while (n && out[n - 1] == '\n') out[--n] = '\0';
    const char *last = strrchr(out, '\n');
    printf("    python/tests: %s\n", last ? last + 1 : out);
  }
  free(out);
}

/* The README's install: pip install ./python builds libperfgate.so and
 * bundles it; the installed package loads it and runs a claim. */
ST_TEST(python_pip_install_bundles_the_library)
{
#if defined(__SANITIZE_ADDRESS__)
  st_skip("built with AddressSanitizer: the Python interpreter would need its runtime preloaded");
  return;
#endif
  if (st_shell("python3 -c 'import setuptools, pip, wheel' >/dev/null 2>&1")) {
    st_skip("python3 with pip, setuptools and wheel is not installed (pip install wheel)");
    return;
  }
  char dir[] = "/tmp/perfgate-pip-XXXXXX", cmd[2048], log[300];
  if (!ST_CHECK(mkdtemp(dir) != NULL)) return;
  snprintf(log, sizeof log, "%s/pip.log", dir);
  snprintf(cmd, sizeof cmd,
           "PERFGATE_BUILD=\"$(cd '%s' && pwd)\" python3 -m pip install -q --no-build-isolation "
           "--no-deps --target='%s/site' ./python >'%s' 2>&1 && cd /tmp && env -u PERFGATE_LIB "
           "PYTHONPATH='%s/site' python3 -c \"import perfgate; p = perfgate.Perf('t', budget=0.2); "
           "print(p.expect_similar(lambda: None, lambda: None, 0.5)); p.close()\" >>'%s' 2>&1",
           st_build_dir(), dir, log, dir, log);
  int rc = st_shell(cmd);
  char *out = st_slurp(log);
  ST_CHECKF(rc == 0 && out && strstr(out, "True"), "exit %d: %s", rc, out ? out : "(no log)");
  snprintf(cmd, sizeof cmd, "test -f '%s/site/perfgate/libperfgate.so'", dir);
  ST_EQ(st_shell(cmd), 0);
  free(out);
  st_rmtree(dir);
}
