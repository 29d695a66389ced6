/* unit_file.c — the atomic file writer: a whole new file or the old one, no temporary left. */
/* Every failed step is an error with errno's message. */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/file.h"
#include "util/status.h"
#include "selftest.h"

ST_TEST(file_replace_writes_the_whole_file_and_leaves_no_temporary)
{
  char dir[] = "/tmp/perfgate-file-XXXXXX", path[300], err[200] = "";
  perf__file_step step = PERF__FILE_WRITE;
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/r.json", dir);
  ST_EQ(perf__file_replace(path, "old\n", 4, 0, &step, err, sizeof err), 0);
  ST_EQ(step, PERF__FILE_DONE);
  ST_EQ(perf__file_replace(path, "new text\n", 9, PERF__FILE_DURABLE, NULL, err, sizeof err), 0);
  char *text = st_slurp(path);
  ST_STR(text, "new text\n");
  free(text);
  struct stat st;
  mode_t mask = umask(0);
  umask(mask);
  ST_CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == (0644 & ~mask)); /* durable: 0644 */
  ST_EQ(perf__file_replace(path, NULL, 0, 0, NULL, err, sizeof err), 0); /* empty is fine */
  ST_CHECK(stat(path, &st) == 0 && st.st_size == 0);
  ST_EQ(st_temp_files(dir), 0);
  /* Given up after the temporary was made: the old file, no temporary. */
  perf__file w;
  perf__file_why why = {&step, err, sizeof err};
  ST_EQ(perf__file_replace(path, "kept\n", 5, 0, NULL, err, sizeof err), 0);
  ST_EQ(perf__file_open(&w, path, PERF__FILE_DURABLE, &why), 0);
  ST_EQ(st_temp_files(dir), 1);
  perf__file_abort(&w);
  ST_EQ(st_temp_files(dir), 0);
  text = st_slurp(path);
  ST_STR(text, "kept\n");
  free(text);
  char tmp[400], want[400];
  snprintf(want, sizeof want, "%s.tmp.%ld", path, (long)getpid());
  ST_STR(perf__file_tmp_name(path, tmp, sizeof tmp), want);
  st_rmtree(dir);
}

ST_TEST(file_replace_failures_are_errors_with_errno_and_step)
{
  char dir[] = "/tmp/perfgate-file-XXXXXX", path[300], err[200] = "";
  perf__file_step step = PERF__FILE_DONE;
  ST_EQ(perf__file_replace("/nonexistent-dir/r.json", "x", 1, 0, &step, err, sizeof err),
        PERF__EIO);
  ST_EQ(step, PERF__FILE_CREATE);
  ST_STR(err, "No such file or directory");
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/taken", dir); /* a non-empty directory */
  ST_CHECK(mkdir(path, 0755) == 0);
  snprintf(path, sizeof path, "%s/taken/sub", dir);
  ST_CHECK(mkdir(path, 0755) == 0);
  snprintf(path, sizeof path, "%s/taken", dir);
  ST_EQ(perf__file_replace(path, "x", 1, PERF__FILE_DURABLE, &step, err, sizeof err), PERF__EIO);
  ST_EQ(step, PERF__FILE_CREATE); /* a directory is refused before anything is written */
  ST_STR(err, "Is a directory");
  ST_EQ(st_temp_files(dir), 0);
  /* A file-size limit: the write fails (EFBIG, SIGXFSZ ignored) and is an
   * error, never a success; the old file stays. */
  snprintf(path, sizeof path, "%s/r.json", dir);
  ST_EQ(perf__file_replace(path, "old\n", 4, 0, NULL, err, sizeof err), 0);
  static char big[64 * 1024];
  memset(big, 'x', sizeof big);
  struct rlimit lim = {4096, 4096};
  signal(SIGXFSZ, SIG_IGN);
  ST_CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
  ST_EQ(perf__file_replace(path, big, sizeof big, 0, &step, err, sizeof err), PERF__EIO);
  ST_EQ(step, PERF__FILE_WRITE);
  ST_STR(err, "File too large");
  char *text = st_slurp(path);
  ST_STR(text, "old\n");
  free(text);
  ST_EQ(st_temp_files(dir), 0);
  st_rmtree(dir);
}

/* A link to nothing is told from a missing path, a link that resolves and
 * a file, its target read as the link holds it. */
ST_TEST(file_dangling_is_a_link_to_nothing_only)
{
  char dir[] = "/tmp/perfgate-file-XXXXXX", path[300], to[300];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/link", dir);
  ST_EQ(symlink("no/such.db", path), 0);
  ST_EQ(perf__file_dangling(path, to, sizeof to), 1);
  ST_STR(to, "no/such.db");
  snprintf(path, sizeof path, "%s/missing", dir);
  ST_EQ(perf__file_dangling(path, to, sizeof to), 0);
  snprintf(path, sizeof path, "%s/file", dir);
  ST_EQ(perf__file_replace(path, "x", 1, 0, NULL, to, sizeof to), 0);
  ST_EQ(perf__file_dangling(path, to, sizeof to), 0);
  snprintf(path, sizeof path, "%s/good", dir);
  ST_EQ(symlink("file", path), 0);
  ST_EQ(perf__file_dangling(path, to, sizeof to), 0);
  st_rmtree(dir);
}
