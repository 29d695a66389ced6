/* callsite.c — where in the user's code a CUDA call came from: the backtrace frame, file:line. */
#define _GNU_SOURCE
#include "worker/sync/callsite.h"

#include <dlfcn.h>
#include <pthread.h>
#include <elf.h>
#include <execinfo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "worker/sync/srcline.h"

enum { MAX_FRAMES = 64 };

/* Never fails. */
int perf__callsite_pick(const int *in_exe, int n)
{
  int left = 0;
  for (int i = 0; i < n; i++) {
    if (!in_exe[i])
      left = 1;
    else if (left)
      return i;
  }
  return -1;
}

/* Load address of the main executable (where this function lives). */
static const void *exe_base(void)
{
  static const void *base;
  Dl_info info;
  if (!base && dladdr((void *)exe_base, &info)) base = info.dli_fbase;
  return base;
}

/* Libraries whose functions are CUDA itself, not a library the user
 * called: their frames are not named as "inside". */
static int cuda_itself(const char *path)
{
  const char *f = strrchr(path, '/');
  f = f ? f + 1 : path;
  return !strncmp(f, "libcudart", 9) || !strncmp(f, "libcuda.", 8) ||
         !strncmp(f, "libcupti", 8);
}

/* Never fails. */
static perf__callsite_hook *lang_hook;
static pthread_t hook_thread;

/* See callsite.h. */
void perf__callsite_set_hook(perf__callsite_hook *hook)
{
  lang_hook = hook;
  hook_thread = pthread_self();
}

/* name demangled by the C++ runtime when one is loaded (an embedder such
 * as PyTorch brings libstdc++), into out[len]; else as it is. */
static void demangled(const char *name, char *out, size_t len)
{
  typedef char *demangle_fn(const char *, char *, size_t *, int *);
  static demangle_fn *fn;
  static int looked;
  if (!looked) {
    looked = 1;
    *(void **)&fn = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    /* Loaded privately (Python loads extensions RTLD_LOCAL): ask it. */
    void *cxx = fn ? NULL : dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
    if (cxx) *(void **)&fn = dlsym(cxx, "__cxa_demangle");
  }
  int status = -1;
  char *d = fn && !strncmp(name, "_Z", 2) ? fn(name, NULL, NULL, &status) : NULL;
  snprintf(out, len, "%s", d && status == 0 ? d : name);
  free(d);
}

/* The native function that called CUDA, for a site an embedder named:
 * the innermost frame outside CUDA and outside this library. */
static void native_caller(const Dl_info *info, int n, char *out, size_t len)
{
  out[0] = '\0';
  for (int i = 0; i < n; i++)
    if (info[i].dli_fname && info[i].dli_fbase != exe_base() && !cuda_itself(info[i].dli_fname)) {
      if (info[i].dli_sname) demangled(info[i].dli_sname, out, len);
      return;
    }
}

void perf__callsite_capture(perf__callsite_site *s)
{
  s->lang[0] = '\0';
  /* Only the thread that set the hook runs the embedder's code (Python's,
   * which other threads, torch's own among them, may not be able to run). */
  if (lang_hook && pthread_equal(hook_thread, pthread_self()) && lang_hook(s->lang, sizeof s->lang))
    s->lang[0] = '\0';
  void *frames[MAX_FRAMES];
  int in_exe[MAX_FRAMES];
  Dl_info info[MAX_FRAMES];
  int n = backtrace(frames, MAX_FRAMES);
  for (int i = 0; i < n; i++) {
    if (!dladdr(frames[i], &info[i])) info[i] = (Dl_info){0};
    in_exe[i] = info[i].dli_fbase == exe_base();
  }
  int k = perf__callsite_pick(in_exe, n);
  s->pc = k > 0 ? (char *)frames[k] - 1 : NULL; /* inside the call insn */
  for (int u = 0; u < PERF__SITE_UP; u++)
    s->up[u] = k > 0 && k + 1 + u < n && in_exe[k + 1 + u] && (u == 0 || s->up[u - 1])
                   ? (char *)frames[k + 1 + u] - 1
                   : NULL;
  s->inside[0] = '\0';
  if (k > 0 && info[k - 1].dli_fname && !cuda_itself(info[k - 1].dli_fname) &&
      info[k - 1].dli_sname)
    snprintf(s->inside, sizeof s->inside, "%s", info[k - 1].dli_sname);
  if (s->lang[0]) native_caller(info, n, s->inside, sizeof s->inside);
}

/* Offset addr2line expects: position-independent executables are read at
 * their link-time addresses, which start at 0. */
static uintptr_t file_address(const void *pc)
{
  const Elf64_Ehdr *eh = exe_base();
  if (eh && eh->e_type == ET_DYN) return (uintptr_t)pc - (uintptr_t)eh;
  return (uintptr_t)pc;
}

static void fallback(const void *pc, char *out, size_t len)
{
  Dl_info info;
  if (dladdr(pc, &info) && info.dli_sname)
    snprintf(out, len, "%s+0x%lx", info.dli_sname,
             (unsigned long)((uintptr_t)pc - (uintptr_t)info.dli_saddr));
  else
    snprintf(out, len, "exe+0x%lx", (unsigned long)file_address(pc));
}

/* Shortens an absolute path under the working directory. */
static const char *relative(const char *path)
{
  static char cwd[4096];
  if (!cwd[0] && !getcwd(cwd, sizeof cwd)) return path;
  size_t n = strlen(cwd);
  if (!strncmp(path, cwd, n) && path[n] == '/') return path + n + 1;
  return path;
}

/* Names pc from addr2line's answer: "file:line (function)", or
 * fallback()'s name when it knows no line. Never fails. */
static void from_answer(char *fn, char *loc, const void *pc, char *out, size_t len, int *line)
{
  *line = 0;
  loc[strcspn(loc, " ")] = '\0'; /* " (discriminator N)" */
  char *colon = strrchr(loc, ':');
  if (loc[0] == '?' || !colon || colon[1] == '?' || colon[1] == '0') {
    fallback(pc, out, len);
    return;
  }
  *line = atoi(colon + 1);
  snprintf(out, len, "%.180s (%.70s)", relative(loc), fn);
}

/* This program's file for addr2line: what /proc/self/exe names (under
 * valgrind that is the program, while /proc/PID/exe read by another process
 * is valgrind's tool), else /proc/PID/exe (also when the file was replaced
 * since, or the name is too long or has a quote). Never fails. */
static void exe_path(char *buf, size_t len)
{
  ssize_t n = readlink("/proc/self/exe", buf, len - 1);
  if (n > 0) buf[n] = '\0';
  if (n <= 0 || (size_t)n >= len - 1 || strchr(buf, '\'') || access(buf, R_OK))
    snprintf(buf, len, "/proc/%ld/exe", (long)getpid());
}

/* Never fails; see callsite.h. */
void perf__callsite_resolve(void *const *pcs, size_t n, char (*out)[256],
                        int *line_no)
{
  char exe[4096], fn[256], loc[1024];
  exe_path(exe, sizeof exe);
  for (size_t i = 0; i < n; i++) {
    line_no[i] = 0;
    if (!pcs[i])
      snprintf(out[i], 256, "unknown call site");
    else if (perf__srcline_ask(exe, (unsigned long)file_address(pcs[i]), fn, sizeof fn, loc,
                               sizeof loc))
      fallback(pcs[i], out[i], 256);
    else
      from_answer(fn, loc, pcs[i], out[i], 256, &line_no[i]);
  }
}

/* Never fails; see callsite.h. */
int perf__callsite_choose(const char (*where)[256], int n)
{
  int k = 0;
  while (k < n - 1 &&
         (strstr(where[k], "/include/crt/") || strstr(where[k], "/include/cuda_runtime.h:")))
    k++;
  if (k < n - 2 && (strstr(where[k], ".cudafe1.stub.c:") || strstr(where[k], "__device_stub__")))
    k += 2; /* the stub, and the kernel's host function that calls it */
  return k < n ? k : 0;
}

/* Never fails; see callsite.h. */
void perf__callsite_name(const perf__callsite_site *s, char *out, size_t len, int *line_no)
{
  void *pcs[1 + PERF__SITE_UP] = {s->pc};
  char where[1 + PERF__SITE_UP][256];
  int lines[1 + PERF__SITE_UP], n = 1;
  while (n <= PERF__SITE_UP && s->up[n - 1]) pcs[n] = s->up[n - 1], n++;
  perf__callsite_resolve(pcs, (size_t)n, where, lines);
  int k = perf__callsite_choose((const char (*)[256])where, n);
  snprintf(out, len, "%s", where[k]);
  *line_no = lines[k];
}

/* Never fails; see callsite.h. */
void perf__callsite_tail_call(char *where, size_t len, const char *runner,
                          const char *who)
{
  char paren[80];
  snprintf(paren, sizeof paren, "(%s)", runner);
  if (!who || !strstr(where, paren)) return;
  snprintf(where, len, "an unknown line of workload '%.60s' (its frame was "
           "replaced by a tail call: build it with -fno-optimize-sibling-calls)",
           who);
}
