/* provenance.h — where a run's code came from: its commit and branch, from flags, CI or git. */
/* The command line first, then the CI's variables, then git. */
#ifndef PERF_PROVENANCE_H
#define PERF_PROVENANCE_H

#include <stddef.h>

typedef struct perf__provenance {
  char commit[128]; /* "unknown" when nothing says */
  char from[32];    /* what said it: "--commit", "GITHUB_SHA", "git", "none" */
  char branch[128]; /* "" when nothing says */
} perf__provenance;

/* Fills p: the commit from commit (--commit=, may be NULL), else the
 * first of GITHUB_SHA, CI_COMMIT_SHA, BUILDKITE_COMMIT, CIRCLE_SHA1,
 * GIT_COMMIT that is set (to more than white space), else `git rev-parse
 * HEAD` in the working directory, with "-dirty" after it when tracked
 * files differ from HEAD; the branch from branch (--branch=), else
 * GITHUB_HEAD_REF, GITHUB_REF_NAME, CI_COMMIT_REF_NAME, BUILDKITE_BRANCH,
 * CIRCLE_BRANCH, GIT_BRANCH, else git's current branch. Each value is
 * taken as it is and checked by the one rule (util/label.h): never cut or
 * changed. Returns 0 (what cannot be found is "unknown" (commit) or ""
 * (branch)), or PERF__EUSAGE with err[len] naming the option, variable or
 * git, what is wrong and the remedy. */
int perf__provenance_detect(const char *commit, const char *branch, perf__provenance *p, char *err,
                            size_t len);

#endif
