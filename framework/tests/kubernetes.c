/* kubernetes.c — ci/kubernetes/: valid manifests, shard totals, merge.sh's exit code. */
/* Every manifest valid against the Kubernetes API's schema (and the check
 * can fail), shard totals equal to completions, merge.sh's exit code the
 * run's. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "selftest.h"

#define K8S_DIR "ci/kubernetes"
#define K8S_CHECK "framework/tests/kubernetes_check.py"
/* The Kubernetes version checked against: the manifests use backoffLimitPerIndex
 * and podFailurePolicy's FailIndex (GA in 1.33) and podReplacementPolicy. */
#define K8S_VERSION "1.33"

enum { MAX_MANIFESTS = 32 };

static int by_name(const void *a, const void *b) { return strcmp(a, b); }

/* The .yaml files of ci/kubernetes/ (paths, sorted) into names; returns how
 * many, or -1 when the directory cannot be read. */
static int manifests(char names[][256], int max)
{
  DIR *d = opendir(K8S_DIR);
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) && n < max;) {
    size_t len = strlen(e->d_name);
    if (len > 5 && !strcmp(e->d_name + len - 5, ".yaml"))
      snprintf(names[n++], 256, K8S_DIR "/%.200s", e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, 256, by_name);
  return n;
}

/* Runs the checker on path; returns its exit code, its output in out. */
static int check(const char *path, char *out, size_t len)
{
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "python3 " K8S_CHECK " " K8S_VERSION " '%s' 2>&1", path);
  out[0] = '\0';
  FILE *p = popen(cmd, "r");
  if (!ST_CHECKF(p != NULL, "popen(%s)", cmd)) return -1;
  size_t got = fread(out, 1, len - 1, p);
  out[got] = '\0';
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* 1 when the checker can run (python3 with kubernetes_validate bundling
 * K8S_VERSION); else the test is skipped with the checker's reason. */
static int need_validator(void)
{
  if (st_shell("python3 -c pass >/dev/null 2>&1")) {
    st_skip("python3 is not installed (kubernetes-validate needs it)");
    return 0;
  }
  char out[2048];
  int rc = check(K8S_DIR "/reports.yaml", out, sizeof out);
  if (rc != 3) return 1;
  out[strcspn(out, "\n")] = '\0';
  st_skip("%s (pip install kubernetes-validate)", out);
  return 0;
}

/* Writes text to dir/name; returns the path (static). */
static const char *write_file(const char *dir, const char *name, const char *text)
{
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  int ok = f && fputs(text, f) >= 0;
  ok = (f && !fclose(f)) && ok;
  ST_CHECKF(ok, "cannot write %s", path);
  return path;
}

/* text with the first from replaced by to (malloc'd); NULL when from is absent. */
static char *replaced(const char *text, const char *from, const char *to)
{
  const char *at = strstr(text, from);
  if (!at) return NULL;
  size_t head = (size_t)(at - text), fl = strlen(from), tl = strlen(to);
  char *s = malloc(strlen(text) - fl + tl + 1);
  if (!s) abort();
  memcpy(s, text, head);
  memcpy(s + head, to, tl);
  strcpy(s + head + tl, at + fl);
  return s;
}

/* Every manifest under ci/kubernetes/ is valid against the Kubernetes API's
 * schema, strictly (no field the API does not know), each file on its own;
 * there is an Indexed Job per GPU model, the merge Job and the reports
 * volume; each file opens with a comment saying what it is. */
ST_TEST(kubernetes_manifests_validate_against_the_api_schema)
{
  if (!need_validator()) return;
  char names[MAX_MANIFESTS][256], out[4096];
  int n = manifests(names, MAX_MANIFESTS), indexed = 0;
  ST_CHECKF(n >= 5, "%d manifests in " K8S_DIR " (run from the repository's root)", n);
  for (int i = 0; i < n; i++) {
    int rc = check(names[i], out, sizeof out);
    ST_CHECKF(rc == 0 && !strncmp(out, "ok ", 3) && !strstr(out, "FAIL"), "%s: exit %d:\n%s",
              names[i], rc, out);
    printf("  %s", out);
    char *text = st_slurp(names[i]);
    ST_CHECKF(text && !strncmp(text, "# ", 2) && strstr(text, " — "),
              "%s does not open with a '# NAME — what it is' comment", names[i]);
    indexed += text && strstr(text, "completionMode: Indexed") != NULL;
    free(text);
  }
  ST_CHECKF(indexed >= 3, "%d Indexed Jobs (one per GPU model: h100, a100, l4)", indexed);
}

/* And the check can fail: a copy of a manifest with a misspelled field, a
 * value of the wrong type, a kind the API does not have (which the package's
 * own CLI only warns about), or a shard total other than completions is
 * rejected, naming what is wrong. */
ST_TEST(kubernetes_manifest_check_rejects_a_broken_copy)
{
  if (!need_validator()) return;
  char *good = st_slurp(K8S_DIR "/h100.yaml");
  if (!ST_CHECKF(good != NULL, K8S_DIR "/h100.yaml cannot be read")) return;
  static const struct {
    const char *from, *to, *why;
  } breaks[] = {
      {"completionMode: Indexed", "completionMod: Indexed", "'completionMod' was unexpected"},
      {"completions: 4", "completions: four", "'four' is not of type 'integer'"},
      {"restartPolicy: Never", "restartPolicy: [Never]", "restartPolicy"},
      {"kind: Job", "kind: Jobs", "Couldn't find schema for kind Jobs"},
      {"value: \"4\"", "value: \"3\"", "PERFGATE_TOTAL_SHARDS '3' is not completions 4"},
  };
  char dir[] = "/tmp/perfgate-k8s-XXXXXX", out[4096];
  if (!ST_CHECK(mkdtemp(dir) != NULL)) {
    free(good);
    return;
  }
  for (size_t i = 0; i < sizeof breaks / sizeof breaks[0]; i++) {
    char *bad = replaced(good, breaks[i].from, breaks[i].to), name[32];
    if (!ST_CHECKF(bad != NULL, "h100.yaml has no '%s'", breaks[i].from)) continue;
    snprintf(name, sizeof name, "bad%zu.yaml", i);
    const char *path = write_file(dir, name, bad);
    int rc = check(path, out, sizeof out);
    ST_CHECKF(rc == 1 && strstr(out, "FAIL ") && strstr(out, breaks[i].why),
              "%s -> %s: exit %d, want 1 and \"%s\":\n%s", breaks[i].from, breaks[i].to, rc,
              breaks[i].why, out);
    free(bad);
  }
  free(good);
  st_rmtree(dir);
}

/* The number after "key" on the first line that has it at or after from, or
 * -1; a quoted number ("4") counts. */
static long number_after(const char *from, const char *key)
{
  const char *at = from ? strstr(from, key) : NULL;
  if (!at) return -1;
  at += strlen(key);
  at += strspn(at, " \"");
  char *end;
  long v = strtol(at, &end, 10);
  return end > at ? v : -1;
}

/* Without Python too: each Indexed Job's PERFGATE_TOTAL_SHARDS (the value on
 * the line after its name) is its completions and its parallelism, and it
 * reads the run id from the Job's controller-uid label. */
ST_TEST(kubernetes_shard_totals_match_completions)
{
  char names[MAX_MANIFESTS][256];
  int n = manifests(names, MAX_MANIFESTS), indexed = 0;
  ST_CHECKF(n > 0, "no manifests in " K8S_DIR " (run from the repository's root)");
  for (int i = 0; i < n; i++) {
    char *text = st_slurp(names[i]);
    if (!ST_CHECKF(text != NULL, "%s cannot be read", names[i])) continue;
    if (strstr(text, "completionMode: Indexed")) {
      indexed++;
      long c = number_after(strstr(text, "\n  completions:"), "completions:");
      long p = number_after(strstr(text, "\n  parallelism:"), "parallelism:");
      long t = number_after(strstr(text, "name: PERFGATE_TOTAL_SHARDS"), "value:");
      ST_CHECKF(c > 0 && p == c && t == c, "%s: completions %ld, parallelism %ld, "
                "PERFGATE_TOTAL_SHARDS %ld", names[i], c, p, t);
      ST_CHECKF(strstr(text, "metadata.labels['batch.kubernetes.io/controller-uid']") &&
                    strstr(text, "--history=$(PERFGATE_HISTORY)") &&
                    strstr(text, "secretKeyRef") && strstr(text, "nvidia.com/gpu.product:") &&
                    strstr(text, "nvidia.com/gpu: 1"),
                "%s: a run id, history Secret, GPU product or GPU limit is missing", names[i]);
    }
    free(text);
  }
  ST_CHECKF(indexed >= 3, "%d Indexed Jobs", indexed);
}

/* A kubectl that answers as a cluster would for one run, its waits at once
 * (FAKE_WAIT=timeout: both fail, as at their timeout), the merge pod's exit
 * code from FAKE_CODE; it keeps the merge Job it is given. */
static const char fake_kubectl[] =
    "#!/bin/sh\n"
    "echo \"$*\" >> \"$FAKE_DIR/calls\"\n"
    "case \"$*\" in\n"
    "  'get job perfgate-h100-abcde -o jsonpath={.metadata.uid}') printf 3b0c8a52-9f1e-4d1a-8c55-0a1b2c3d4e5f ;;\n"
    "  *metadata.uid*) echo 'Error from server (NotFound)' >&2; exit 1 ;;\n"
    "  'get job '*) echo '3 of 4 shards succeeded, 1 attempts failed' ;;\n"
    "  wait*condition=Complete*) [ \"$FAKE_WAIT\" = timeout ] && exit 1; exit 0 ;;\n"
    "  wait*condition=Failed*) [ \"$FAKE_WAIT\" = timeout ] && exit 1; exec sleep 30 ;;\n"
    "  'create -f - -o name') cat > \"$FAKE_DIR/merge-job.yaml\"; echo job.batch/perfgate-merge-xyz ;;\n"
    "  'logs job/perfgate-merge-xyz') echo 'perfgate: merged 4 reports' ;;\n"
    "  'get pods -l batch.kubernetes.io/job-name=perfgate-merge-xyz '*) printf %s \"$FAKE_CODE\" ;;\n"
    "  *) echo \"fake kubectl: unexpected: $*\" >&2; exit 1 ;;\n"
    "esac\n";

/* Runs merge.sh job with the fake kubectl of dir; returns its exit code and
 * its output in out. */
static int merge_sh(const char *dir, const char *job, const char *env, char *out, size_t len)
{
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "rm -f '%s/merge-job.yaml'; env PATH='%s/bin':\"$PATH\" FAKE_DIR='%s' %s "
           "bash " K8S_DIR "/merge.sh '%s' > '%s/out' 2>&1", dir, dir, dir, env, job, dir);
  int rc = st_shell(cmd);
  char path[512];
  snprintf(path, sizeof path, "%s/out", dir);
  char *text = st_slurp(path);
  snprintf(out, len, "%s", text ? text : "");
  free(text);
  return rc;
}

/* merge.sh waits for the shards' Job, creates the merge Job from merge.yaml
 * with the Job's uid as the run id (the result still valid against the API's
 * schema), prints the merge's output and exits with the merge's code (0, 1
 * or 2); 2 when the Job does not exist, does not finish in time, or the merge
 * pod has no exit code. */
ST_TEST(kubernetes_merge_script_exits_with_the_run_code)
{
  if (st_shell("bash -c '[ \"${BASH_VERSINFO[0]}${BASH_VERSINFO[1]}\" -ge 51 ]' 2>/dev/null")) {
    st_skip("merge.sh needs bash 5.1 or later (wait -n with process ids)");
    return;
  }
  char dir[] = "/tmp/perfgate-k8s-XXXXXX", bin[64], out[4096];
  if (!ST_CHECK(mkdtemp(dir) != NULL)) return;
  snprintf(bin, sizeof bin, "%s/bin", dir);
  ST_CHECK(mkdir(bin, 0755) == 0);
  ST_CHECK(chmod(write_file(bin, "kubectl", fake_kubectl), 0755) == 0);

  static const char *const codes[] = {"0", "1", "2"};
  for (int i = 0; i < 3; i++) {
    char env[32];
    snprintf(env, sizeof env, "FAKE_CODE=%s", codes[i]);
    int rc = merge_sh(dir, "job.batch/perfgate-h100-abcde", env, out, sizeof out);
    ST_CHECKF(rc == i && strstr(out, "3 of 4 shards succeeded") &&
                  strstr(out, "perfgate: merged 4 reports"),
              "merge pod exit %s: merge.sh exit %d:\n%s", codes[i], rc, out);
  }
  char path[512];
  snprintf(path, sizeof path, "%s/merge-job.yaml", dir);
  char *job = st_slurp(path);
  ST_CHECKF(job && strstr(job, "value: \"3b0c8a52-9f1e-4d1a-8c55-0a1b2c3d4e5f\"") &&
                !strstr(job, "\"PERFGATE_RUN_ID_FROM_MERGE_SH\""),
            "the merge Job does not carry the run id:\n%s", job ? job : "(none)");
  free(job);
  if (st_shell("python3 " K8S_CHECK " " K8S_VERSION " /dev/null >/dev/null 2>&1") != 3) {
    int rc = check(path, out, sizeof out);
    ST_CHECKF(rc == 0, "the merge Job merge.sh created: exit %d:\n%s", rc, out);
  }

  int rc = merge_sh(dir, "job.batch/perfgate-h100-abcde", "FAKE_CODE=", out, sizeof out);
  ST_CHECKF(rc == 2 && strstr(out, "ended without an exit code"), "no exit code: %d:\n%s", rc, out);
  rc = merge_sh(dir, "perfgate-h100-abcde", "FAKE_WAIT=timeout PERFGATE_WAIT=1s", out, sizeof out);
  ST_CHECKF(rc == 2 && strstr(out, "did not finish within 1s"), "timeout: exit %d:\n%s", rc, out);
  rc = merge_sh(dir, "perfgate-h100-nope", "FAKE_CODE=0", out, sizeof out);
  ST_CHECKF(rc == 2 && strstr(out, "no Job perfgate-h100-nope"), "no Job: exit %d:\n%s", rc, out);
  st_rmtree(dir);
}
