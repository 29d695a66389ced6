/* python.c — the Python package's own tests and its wheel, against this build's library. */
/* python/tests (the pytest plugin on host-only workloads) run against this
 * build's libperfgate.so; the wheel's tag and metadata, installed into a
 * fresh venv. */
#define _GNU_SOURCE
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "perfgate.h"
#include "selftest.h"
#define PERF_ABI_ONLY
#include "perfgate.h"
#undef PERF_ABI_ONLY

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

/* ---- the wheel (pip wheel ./python) ------------------------------------------ */

/* Runs cmd (stdout and stderr) into out[len], the last line's newline
 * dropped; returns its exit code (127 when it could not run). */
static int capture(const char *cmd, char *out, size_t len)
{
  out[0] = '\0';
  FILE *p = popen(cmd, "r");
  if (!p) return 127;
  size_t n = fread(out, 1, len - 1, p);
  out[n] = '\0';
  while (fgetc(p) != EOF) {
  }
  while (n && out[n - 1] == '\n') out[--n] = '\0';
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* What python3 lacks to build the wheel, in what[len] ("" when nothing):
 * pip, setuptools >= 61, and wheel where setuptools is older than 70.1
 * (which has bdist_wheel itself). Returns 1 when something is missing. */
static int lacks_build_tools(char *what, size_t len)
{
  int rc = capture(
      "python3 -c '\n"
      "import importlib.util as u, importlib.metadata as m\n"
      "has = lambda n: u.find_spec(n) is not None\n"
      "v = tuple(int(x) for x in m.version(\"setuptools\").split(\".\")[:2]) if has(\"setuptools\") else None\n"
      "miss = [] if has(\"pip\") else [\"pip\"]\n"
      "miss += [\"setuptools\"] if v is None else [\"setuptools >= 61 (it has %d.%d)\" % v] if v < (61, 0) else []\n"
      "miss += [\"wheel\"] if not has(\"wheel\") and (v or (0,)) < (70, 1) else []\n"
      "print(\", \".join(miss))' 2>&1",
      what, len);
  if (rc) { /* its last line says why */
    char said[200];
    const char *last = strrchr(what, '\n');
    snprintf(said, sizeof said, "%s", last ? last + 1 : what);
    snprintf(what, len, "a python3 that runs (the probe: exit %d: %s)", rc, said);
  }
  return what[0] != '\0';
}

/* "MAJOR.MINOR.PATCH" of perfgate.h, as the package must carry it. */
static const char *header_version(void)
{
  static char v[32];
  snprintf(v, sizeof v, "%d.%d.%d", PERF_VERSION_MAJOR, PERF_VERSION_MINOR, PERF_VERSION_PATCH);
  return v;
}

/* Builds python/'s wheel with this build's library into dir/dist (as the
 * README's pip wheel ./python does, without fetching anything); returns 1
 * with its path in whl[len], or 0 after a failed check. */
static int build_wheel(const char *dir, char *whl, size_t len)
{
  char cmd[2048], log[300];
  snprintf(log, sizeof log, "%s/pip-wheel.log", dir);
  snprintf(cmd, sizeof cmd,
           "PERFGATE_BUILD=\"$(cd '%s' && pwd)\" python3 -m pip wheel -q --no-build-isolation "
           "--no-deps -w '%s/dist' ./python >'%s' 2>&1",
           st_build_dir(), dir, log);
  int rc = st_shell(cmd);
  char *out = st_slurp(log);
  int ok = ST_CHECKF(rc == 0, "pip wheel ./python: exit %d:\n%s", rc, out ? out : "(no log)");
  free(out);
  if (!ok) return 0;
  glob_t g;
  snprintf(cmd, sizeof cmd, "%s/dist/*.whl", dir);
  int found = glob(cmd, 0, NULL, &g) == 0 && g.gl_pathc == 1;
  if (ST_CHECKF(found, "pip wheel made %zu wheels in %s/dist, not 1", found ? g.gl_pathc : 0, dir))
    snprintf(whl, len, "%s", g.gl_pathv[0]);
  globfree(&g);
  return found;
}

/* Checks every RUNPATH/RPATH entry in readelf -d's output: only paths
 * relative to the library ($ORIGIN...) may be there. */
static void no_fixed_runpath(const char *dynamic)
{
  for (const char *l = dynamic; (l = strstr(l, "PATH)")); l++) {
    const char *open = strchr(l, '['), *close = open ? strchr(open, ']') : NULL;
    if (!ST_CHECKF(open && close, "readelf: cannot read %.80s", l)) return;
    for (const char *p = open + 1; p < close;) {
      size_t n = strcspn(p, ":]");
      ST_CHECKF(!strncmp(p, "$ORIGIN", 7), "libperfgate.so in the wheel searches a fixed path: %.*s",
                (int)n, p);
      p += n + 1;
    }
  }
}

/* pip wheel ./python in dir: a platform wheel (it holds x86-64 code), for
 * any Python 3 (ctypes, no C API), its version perfgate.h's, and a
 * libperfgate.so that names no fixed folder for the CUDA libraries. */
static void check_wheel(const char *dir)
{
  char whl[512], cmd[2048], path[700], want[256], glibc[64];
  if (!build_wheel(dir, whl, sizeof whl)) return;
  struct utsname u;
  uname(&u);
  snprintf(want, sizeof want, "perfgate-%s-py3-none-linux_%s.whl", header_version(), u.machine);
  ST_STR(strrchr(whl, '/') + 1, want);
  snprintf(cmd, sizeof cmd, "python3 -m zipfile -e '%s' '%s/x' && readelf -d '%s/x/perfgate/libperfgate.so' "
                            ">'%s/dynamic.txt' 2>&1", whl, dir, dir, dir);
  ST_EQ(st_shell(cmd), 0);
  snprintf(path, sizeof path, "%s/x/perfgate-%s.dist-info/WHEEL", dir, header_version());
  char *wheel = st_slurp(path);
  ST_CHECKF(wheel && strstr(wheel, "Root-Is-Purelib: false\n"), "%s:\n%s", path, wheel ? wheel : "(none)");
  snprintf(want, sizeof want, "Tag: py3-none-linux_%s\n", u.machine);
  ST_CHECKF(wheel && strstr(wheel, want), "%s has no '%s':\n%s", path, want, wheel ? wheel : "(none)");
  snprintf(path, sizeof path, "%s/x/perfgate-%s.dist-info/METADATA", dir, header_version());
  char *meta = st_slurp(path);
  snprintf(want, sizeof want, "\nVersion: %s\n", header_version());
  ST_CHECKF(meta && strstr(meta, want), "%s has no '%s'", path, want + 1);
  snprintf(path, sizeof path, "%s/dynamic.txt", dir);
  char *dynamic = st_slurp(path);
  ST_CHECKF(dynamic && strstr(dynamic, "[libcudart.so."), "readelf -d: %s", dynamic ? dynamic : "(none)");
  snprintf(want, sizeof want, "Library soname: [libperfgate.so.%d]", PERF_ABI_VERSION);
  ST_CHECKF(dynamic && strstr(dynamic, want), "readelf -d has no '%s': %s", want,
            dynamic ? dynamic : "(none)");
  if (dynamic) no_fixed_runpath(dynamic);
  snprintf(cmd, sizeof cmd, "objdump -T '%s/x/perfgate/libperfgate.so' | grep -o 'GLIBC_[0-9.]*' | "
                            "sort -uV | tail -1", dir);
  if (capture(cmd, glibc, sizeof glibc) == 0 && glibc[0])
    printf("    %s: its libperfgate.so needs glibc >= %s\n", strrchr(whl, '/') + 1, glibc + 6);
  free(wheel);
  free(meta);
  free(dynamic);
}

ST_TEST(python_wheel_is_a_platform_wheel_with_no_fixed_library_path)
{
#if defined(__SANITIZE_ADDRESS__)
  st_skip("built with AddressSanitizer: the wheel holds the library of a plain build");
  return;
#endif
  char what[512], dir[] = "/tmp/perfgate-wheel-XXXXXX";
  if (lacks_build_tools(what, sizeof what)) {
    st_skip("python3 lacks %s (pip install 'setuptools>=61' wheel; .ci/run installs them)", what);
    return;
  }
  if (!ST_CHECK(mkdtemp(dir) != NULL)) return;
  check_wheel(dir);
  st_rmtree(dir);
}

/* The README's install, from the wheel, into dir/venv (made with its own
 * pip): the package imports from there, loads its bundled C core and runs
 * a claim; its version, the library's perf_version() and the installed
 * metadata are perfgate.h's. */
static void check_venv_install(const char *dir)
{
  char whl[512], cmd[2048], out[4096], want[700];
  if (!build_wheel(dir, whl, sizeof whl)) return;
  snprintf(cmd, sizeof cmd, "'%s/venv/bin/python' -m pip install -q --no-index --no-deps '%s' 2>&1", dir, whl);
  int rc = capture(cmd, out, sizeof out);
  if (!ST_CHECKF(rc == 0, "pip install %s into a venv: exit %d: %s", whl, rc, out)) return;
  snprintf(cmd, sizeof cmd,
           "cd '%s' && env -u PERFGATE_LIB -u PYTHONPATH '%s/venv/bin/python' -c \""
           "import importlib.metadata as m, perfgate; "
           "print('library', perfgate.libraries()['libperfgate.so']); "
           "print('versions', perfgate.__version__, perfgate.library_version(), m.version('perfgate')); "
           "p = perfgate.Perf('t', budget=0.2); p.expect_similar(lambda: None, lambda: None, 0.5); "
           "print('claim', p.claims[0]['outcome']); p.close()\" 2>&1",
           dir, dir);
  rc = capture(cmd, out, sizeof out);
  ST_CHECKF(rc == 0, "the installed package: exit %d: %s", rc, out);
  snprintf(want, sizeof want, "library %s/venv/", dir);
  ST_CHECKF(strstr(out, want) && strstr(out, "/site-packages/perfgate/libperfgate.so\n"),
            "the core was not loaded from the venv: %s", out);
  snprintf(want, sizeof want, "versions %s %s %s\n", header_version(), header_version(), header_version());
  ST_CHECKF(strstr(out, want), "want '%s' in: %s", want, out);
  ST_CHECKF(strstr(out, "claim PASS") || strstr(out, "claim INCONCLUSIVE") || strstr(out, "claim FAIL"),
            "no claim decided by the core: %s", out);
}

ST_TEST(python_wheel_installs_into_a_fresh_venv_and_runs_its_core)
{
#if defined(__SANITIZE_ADDRESS__)
  st_skip("built with AddressSanitizer: the Python interpreter would need its runtime preloaded");
  return;
#endif
  char what[512], dir[] = "/tmp/perfgate-venv-XXXXXX", cmd[600];
  if (lacks_build_tools(what, sizeof what)) {
    st_skip("python3 lacks %s (pip install 'setuptools>=61' wheel; .ci/run installs them)", what);
    return;
  }
  if (!ST_CHECK(mkdtemp(dir) != NULL)) return;
  snprintf(cmd, sizeof cmd, "python3 -m venv '%s/venv' 2>&1 | grep . | head -1", dir);
  capture(cmd, what, sizeof what);
  snprintf(cmd, sizeof cmd, "test -x '%s/venv/bin/pip'", dir);
  if (st_shell(cmd))
    st_skip("python3 -m venv cannot make an environment with pip: %s (Debian/Ubuntu: apt-get "
            "install python3-venv; .ci/run installs it)", what);
  else
    check_venv_install(dir);
  st_rmtree(dir);
}

/* What make test's Python tests need beyond python3 (the probes above and
 * python_package_tests_pass): docs/building.md's Prerequisites name each, and
 * .ci/run installs each on a fresh machine. */
ST_TEST(python_test_prerequisites_are_listed_and_installed_by_ci)
{
  static const char *const needs[] = {"'pytest>=8'", "'setuptools>=61'", "wheel", "python3-venv"};
  char *readme = st_slurp("docs/building.md"), *ci = st_slurp(".ci/run");
  if (!ST_CHECK(readme && ci)) goto out;
  char *from = strstr(readme, "\n## Prerequisites\n"), *to = from ? strstr(from + 1, "\n## ") : NULL;
  if (!ST_CHECKF(from && to, "docs/building.md has no Prerequisites section")) goto out;
  *to = '\0';
  for (size_t k = 0; k < sizeof needs / sizeof *needs; k++) {
    ST_CHECKF(strstr(from, needs[k]), "docs/building.md's Prerequisites do not name %s", needs[k]);
    ST_CHECKF(strstr(ci, needs[k]), ".ci/run does not install %s", needs[k]);
  }
out:
  free(readme);
  free(ci);
}
