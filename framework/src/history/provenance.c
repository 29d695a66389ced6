/* provenance.c — where a run's code came from: its commit and branch, from flags, CI or git. */
/* The command line first, then the CI's variables, then git. */
#define _GNU_SOURCE
#include "history/provenance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/label.h"
#include "util/status.h"

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
  out[strcspn(out, "\n")] = '\0';
}

/* One field of the provenance: the option that gives it, the CI's
 * variables that say it (NULL-terminated), and where it goes (out[len],
 * len > PERF__LABEL_MAX). */
typedef struct field {
  const char *option; /* "--commit", "--branch" */
  const char *const *vars;
  char *out;
  size_t len;
} field;

/* v, which what gave, checked (util/label.h) and copied into f's out.
 * Returns 0, or PERF__EUSAGE with why in err and the remedy (fix it, or
 * give f's option). */
static int take(const char *what, const char *v, const field *f, char *err, size_t elen)
{
  if (perf__label_check(what, v, err, elen)) {
    size_t u = strlen(err);
    if (strcmp(what, f->option))
      snprintf(err + u, elen - u, " (fix it, or give %s=..., which comes first)", f->option);
    return PERF__EUSAGE;
  }
  snprintf(f->out, f->len, "%s", v);
  return 0;
}

/* The first of f's variables set to something other than white space (a
 * CI sets some empty), checked as it is, into f's out, with its name into
 * from (may be NULL). Returns 1 (taken), 0 (none is set) or PERF__EUSAGE. */
static int from_env(const field *f, char *from, size_t flen, char *err, size_t elen)
{
  for (const char *const *var = f->vars; *var; var++) {
    const char *v = getenv(*var);
    if (!v || !v[strspn(v, " \t\r\n")]) continue;
    if (take(*var, v, f, err, elen)) return PERF__EUSAGE;
    if (from) snprintf(from, flen, "%s", *var);
    return 1;
  }
  return 0;
}

/* The commit: commit, else the CI's, else git's (with -dirty). */
static int detect_commit(const char *commit, perf__provenance *p, char *err, size_t len)
{
  static const char *const shas[] = {"GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT",
                                     "CIRCLE_SHA1", "GIT_COMMIT", NULL};
  const field f = {"--commit", shas, p->commit, sizeof p->commit};
  if (commit && *commit) {
    snprintf(p->from, sizeof p->from, "--commit");
    return take("--commit", commit, &f, err, len);
  }
  int rc = from_env(&f, p->from, sizeof p->from, err, len);
  if (rc) return rc < 0 ? rc : 0;
  char head[256];
  git("rev-parse HEAD", head, sizeof head);
  snprintf(p->from, sizeof p->from, "%s", head[0] ? "git" : "none");
  if (!head[0]) return snprintf(p->commit, sizeof p->commit, "unknown"), 0;
  if (take("git rev-parse HEAD", head, &f, err, len)) return PERF__EUSAGE;
  /* Tracked files changed since HEAD: not HEAD's code. */
  char dirty[8];
  git("status --porcelain --untracked-files=no", dirty, sizeof dirty);
  if (dirty[0]) {
    size_t n = strlen(p->commit);
    snprintf(p->commit + n, sizeof p->commit - n, "-dirty");
  }
  return 0;
}

/* See provenance.h. */
int perf__provenance_detect(const char *commit, const char *branch, perf__provenance *p, char *err,
                            size_t len)
{
  static const char *const refs[] = {"GITHUB_HEAD_REF", "GITHUB_REF_NAME", "CI_COMMIT_REF_NAME",
                                     "BUILDKITE_BRANCH", "CIRCLE_BRANCH", "GIT_BRANCH", NULL};
  const field f = {"--branch", refs, p->branch, sizeof p->branch};
  memset(p, 0, sizeof *p);
  int rc = detect_commit(commit, p, err, len);
  if (rc) return rc;
  if (branch && *branch) return take("--branch", branch, &f, err, len);
  if ((rc = from_env(&f, NULL, 0, err, len))) return rc < 0 ? rc : 0;
  char head[256];
  git("rev-parse --abbrev-ref HEAD", head, sizeof head);
  if (!head[0] || !strcmp(head, "HEAD")) return 0; /* none, or detached */
  return take("git's current branch", head, &f, err, len);
}
