/* outputs.c — the files one command writes, checked up front so that no two are one file. */
/* Its reports, each GPU's with --devices, the --history file and SQLite's
 * files beside it. */
#define _GNU_SOURCE
#include "report/outputs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/file.h"
#include "util/status.h"
#include "history/connect.h"
#include "history/sqlite.h"
#include "report/report.h"

/* One file a command writes (or, for --merge's inputs, reads), and what it
 * resolves to. */
typedef struct output {
  const char *opt;       /* "--junit" */
  const char *given;     /* its value as given */
  char path[4200];       /* the file itself (with --devices, a GPU's name) */
  int gpu;               /* the GPU it is for, or -1 */
  int sidecar;           /* a file SQLite keeps beside the --history file */
  int input;             /* a --merge input: read, never written */
  int in_place;          /* written in place (a device, a FIFO, our stdout) */
  int exists;            /* then dev and ino say which file it is */
  dev_t dev;
  ino_t ino;
  char real[PATH_MAX + 256]; /* else its real directory and its name */
} output;

/* The outputs being collected: room for every one a command can name. */
typedef struct outputs {
  output *o;
  size_t n, cap;
} outputs;

/* How many outputs cli can name with nd devices: the history and the
 * files beside it (at most 4), --merge's OUT and inputs, and each report
 * format's file and --plots, once and per GPU. */
#define PERF__OUTPUTS_MAX(cli, nd)                     \
  (5 + (size_t)((cli)->merge ? (cli)->merge_n : 0) + \
   (PERF__REPORT_NFORMATS + 1) * (size_t)((nd) + 1))

/* See outputs.h. */
char *perf__outputs_device_path(const char *path, int id, char *out, size_t len)
{
  const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
  if (!dot || (slash && dot < slash)) dot = path + strlen(path);
  snprintf(out, len, "%.*s.gpu%d%s", (int)(dot - path), path, id, dot);
  return out;
}

/* See outputs.h. */
void perf__outputs_for_gpu(perf__options_cli *cli, int id, perf__outputs_gpu *names)
{
  size_t k = 0;
  for (const perf__report_format *f = perf__report_formats(); f->opt; f++, k++) {
    const char *path = perf__report_path(cli, f);
    if (path)
      perf__report_set_path(
          cli, f, perf__outputs_device_path(path, id, names->path[k], sizeof names->path[k]));
  }
  if (cli->plots) { /* DIR/gpuK: DIR was made by the parent's check */
    snprintf(names->path[k], sizeof names->path[k], "%s/gpu%d", cli->plots, id);
    cli->plots = names->path[k];
  }
}

/* path made absolute and clean ("." and empty parts dropped, ".." taken
 * back) into out[len], for a path whose directory does not exist yet.
 * Never fails (truncates). */
static void lexical(const char *path, char *out, size_t len)
{
  char cwd[PATH_MAX] = "", buf[PATH_MAX * 2 + 2];
  if (path[0] != '/' && !getcwd(cwd, sizeof cwd)) cwd[0] = '\0';
  snprintf(buf, sizeof buf, "%s/%s", cwd, path);
  size_t used = 0;
  out[0] = '\0';
  for (char *save = NULL, *part = strtok_r(buf, "/", &save); part;
       part = strtok_r(NULL, "/", &save)) {
    if (!strcmp(part, ".")) continue;
    if (!strcmp(part, "..")) {
      char *up = strrchr(out, '/');
      used = up ? (size_t)(up - out) : 0;
      out[used] = '\0';
      continue;
    }
    if (used < len) used += (size_t)snprintf(out + used, len - used, "/%s", part);
  }
  if (!out[0]) snprintf(out, len, "/");
}

/* The real name of a path that does not exist: its directory resolved
 * (links and all), then its last part; lexically where the directory does
 * not exist either. Never fails. */
static void real_name(const char *path, char *out, size_t len)
{
  char copy[4200], dir[PATH_MAX];
  snprintf(copy, sizeof copy, "%s", path);
  size_t n = strlen(copy);
  while (n > 1 && copy[n - 1] == '/') copy[--n] = '\0'; /* "d/" names d */
  char *slash = strrchr(copy, '/');
  const char *base = slash ? slash + 1 : copy;
  const char *parent = !slash ? "." : slash == copy ? "/" : (*slash = '\0', copy);
  if (strcmp(base, ".") && strcmp(base, "..") && realpath(parent, dir))
    snprintf(out, len, "%s/%s", strcmp(dir, "/") ? dir : "", base);
  else
    lexical(path, out, len);
}

/* Which file o->path is: its device and inode where it exists (following
 * links), else its real name; and whether the writer would write it in
 * place (perf__file_check's judgement, for a report file). Never fails. */
static void identify(output *o, int report_file)
{
  struct stat st;
  char why[600];
  if (report_file) (void)perf__file_check(o->path, &o->in_place, why, sizeof why);
  if (!stat(o->path, &st)) {
    o->exists = 1;
    o->dev = st.st_dev;
    o->ino = st.st_ino;
    if (!o->input && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) o->in_place = 1;
    return;
  }
  real_name(o->path, o->real, sizeof o->real);
}

/* Adds one output (path given as opt=given; for GPU gpu, or -1). Returns
 * 0, or PERF__ENOMEM when s has no room (it is sized for every output). */
static int add(outputs *s, const char *opt, const char *given, const char *path, int gpu,
               int input, int report_file)
{
  if (s->n == s->cap) return PERF__ENOMEM;
  output *o = &s->o[s->n++];
  *o = (output){.opt = opt, .given = given, .gpu = gpu, .input = input};
  snprintf(o->path, sizeof o->path, "%s", path);
  identify(o, report_file);
  return 0;
}

/* Adds a report's file, and with --devices each GPU's (a directory's
 * DIR/gpuK for --plots). all: the path itself is written too (--json's
 * merged report, --plots' DIR), not only the GPUs'. Returns 0 or
 * PERF__ENOMEM. */
static int add_report(outputs *s, const char *opt, const char *path, int dir, int all,
                      const int *devices, int nd)
{
  if (!path || !*path) return 0;
  int e = nd && !all ? 0 : add(s, opt, path, path, -1, 0, !dir);
  for (int k = 0; !e && k < nd; k++) {
    char mine[4200];
    if (dir)
      snprintf(mine, sizeof mine, "%s/gpu%d", path, devices[k]);
    else
      perf__outputs_device_path(path, devices[k], mine, sizeof mine);
    e = add(s, opt, path, mine, devices[k], 0, !dir);
  }
  return e;
}

/* 1 when a and b are one file, and replacing one would lose the other. */
static int same(const output *a, const output *b)
{
  if (a->in_place || b->in_place || (a->input && b->input)) return 0;
  if (a->exists != b->exists) return 0;
  return a->exists ? a->dev == b->dev && a->ino == b->ino : !strcmp(a->real, b->real);
}

/* "opt=given", with the GPU's file where it is one, into buf[len]. */
static const char *name(const output *o, char *buf, size_t len)
{
  if (o->input)
    snprintf(buf, len, "--merge's input %s", o->path);
  else if (o->sidecar)
    snprintf(buf, len, "%s=%s (SQLite's %s beside it)", o->opt, o->given, o->path);
  else if (o->gpu >= 0)
    snprintf(buf, len, "%s=%s (GPU %d's file %s)", o->opt, o->given, o->gpu, o->path);
  else
    snprintf(buf, len, "%s=%s", o->opt, o->given);
  return buf;
}

/* The SQLite history file and the files SQLite keeps beside it. Returns 0
 * or PERF__ENOMEM. */
static int add_history(outputs *s, const char *path)
{
  int e = add(s, "--history", path, path, -1, 0, 0);
  for (size_t k = 0; !e && perf__sqlite_sidecars[k]; k++) {
    char side[4200];
    snprintf(side, sizeof side, "%s%s", path, perf__sqlite_sidecars[k]);
    if (!(e = add(s, "--history", path, side, -1, 0, 0))) s->o[s->n - 1].sidecar = 1;
  }
  return e;
}

/* Every output of cli into s. Returns 0 or PERF__ENOMEM. */
static int collect(outputs *s, const perf__options_cli *cli, const int *devices, int nd)
{
  int e = 0;
  if (cli->history && *cli->history && !perf__connect_is_postgres(cli->history))
    e = add_history(s, cli->history);
  for (const perf__report_format *f = perf__report_formats(); !e && f->opt; f++)
    e = add_report(s, f->opt, perf__report_path(cli, f), 0, f->gpus == PERF__OPTIONS_MERGED,
                   devices, nd);
  if (!e) e = add_report(s, "--plots", cli->plots, 1, 1, devices, nd);
  if (!e && cli->merge && *cli->merge) e = add(s, "--merge", cli->merge, cli->merge, -1, 0, 1);
  for (int k = 0; !e && cli->merge && k < cli->merge_n; k++)
    e = add(s, "--merge", cli->merge_in[k], cli->merge_in[k], -1, 1, 0);
  return e;
}

/* See outputs.h. */
int perf__outputs_check(const perf__options_cli *cli, const int *devices, int ndevices, char *err,
                        size_t len)
{
  outputs s = {calloc(PERF__OUTPUTS_MAX(cli, ndevices), sizeof(output)), 0,
               PERF__OUTPUTS_MAX(cli, ndevices)};
  int e = s.o ? collect(&s, cli, devices, ndevices) : PERF__ENOMEM;
  if (e) snprintf(err, len, "out of memory");
  for (size_t i = 0; !e && i < s.n; i++)
    for (size_t j = i + 1; !e && j < s.n; j++) {
      if (!same(&s.o[i], &s.o[j])) continue;
      char a[4400], b[4400]; /* inputs come last: o[j] may be one, o[i] not */
      snprintf(err, len, "%s and %s are one file: %s", name(&s.o[i], a, sizeof a),
               name(&s.o[j], b, sizeof b),
               s.o[j].input ? "--merge reads that file; write elsewhere"
                            : "one would replace the other; give each its own file");
      e = PERF__EUSAGE;
    }
  free(s.o);
  return e;
}
