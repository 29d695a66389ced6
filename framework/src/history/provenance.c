/* provenance.c — where a run's code came from: its commit and branch, from the command line, the CI's variables or git. */
#define _GNU_SOURCE
#include "history/provenance.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first line git prints for args, or "" (no git, not a repository, or
 * nothing printed). */
static void git(const char *args, char *out, size_t len)
{
  char cmd[128];
  out[0] = '\0';
  snprintf(cmd, sizeof cmd, "git %s 2>/dev/null", args);
  FILE *f = popen(cmd, "r");
  if (!f) return;
  if (!fgets(out, (int)len, f)) out[0] = '\0';
  pclose(f);
  out[strcspn(out, "\r\n")] = '\0';
}

/* The first of vars[] set to something other than spaces into out, with
 * its name into from; 0 when none is. */
static int from_env(const char *const *vars, char *out, size_t len, char *from, size_t flen)
{
  for (; *vars; vars++) {
    const char *v = getenv(*vars);
    while (v && isspace((unsigned char)*v)) v++;
    if (v && *v) {
      snprintf(out, len, "%s", v);
      out[strcspn(out, "\r\n")] = '\0';
      if (from) snprintf(from, flen, "%s", *vars);
      return 1;
    }
  }
  return 0;
}

/* See provenance.h. */
void perf__provenance_detect(const char *commit, const char *branch, perf__provenance *p)
{
  static const char *const shas[] = {"GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT",
                                     "CIRCLE_SHA1", "GIT_COMMIT", NULL};
  static const char *const refs[] = {"GITHUB_HEAD_REF", "GITHUB_REF_NAME", "CI_COMMIT_REF_NAME",
                                     "BUILDKITE_BRANCH", "CIRCLE_BRANCH", "GIT_BRANCH", NULL};
  memset(p, 0, sizeof *p);
  if (commit && *commit) {
    snprintf(p->commit, sizeof p->commit, "%s", commit);
    snprintf(p->from, sizeof p->from, "--commit");
  } else if (!from_env(shas, p->commit, sizeof p->commit, p->from, sizeof p->from)) {
    git("rev-parse HEAD", p->commit, sizeof p->commit);
    snprintf(p->from, sizeof p->from, "%s", p->commit[0] ? "git" : "none");
    if (!p->commit[0]) snprintf(p->commit, sizeof p->commit, "unknown");
    /* Tracked files changed since HEAD: not HEAD's code. */
    char dirty[8];
    if (!strcmp(p->from, "git") && (git("status --porcelain --untracked-files=no", dirty, sizeof dirty), dirty[0])) {
      size_t n = strlen(p->commit);
      snprintf(p->commit + n, sizeof p->commit - n, "-dirty");
    }
  }
  if (branch && *branch) snprintf(p->branch, sizeof p->branch, "%s", branch);
  else if (!from_env(refs, p->branch, sizeof p->branch, NULL, 0)) {
    git("rev-parse --abbrev-ref HEAD", p->branch, sizeof p->branch);
    if (!strcmp(p->branch, "HEAD")) p->branch[0] = '\0'; /* detached */
  }
}
