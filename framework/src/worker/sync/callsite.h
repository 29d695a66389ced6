/* callsite.h — where in the user's code a CUDA call came from: the backtrace frame, file:line. */
#ifndef PERF_CALLSITE_H
#define PERF_CALLSITE_H

#include <stddef.h>

enum { PERF__SITE_UP = 4 };

typedef struct perf__callsite_site {
  void *pc;          /* return address in the user's code (NULL: not found) */
  void *up[PERF__SITE_UP]; /* the frames above it while they are in the
                              executable too (NULL after the last) */
  char inside[96];   /* library function between user and CUDA, e.g.
                        "cublasSdot_v2"; "" when the user called CUDA;
                        with lang, the native function that called CUDA
                        (demangled when a C++ runtime is loaded) */
  char lang[200];    /* "file.py:12 (function)" from an embedder's hook
                        (the Python line that made the call); "" without */
} perf__callsite_site;

/* An embedder's own stack (Python's): writes the innermost user frame as
 * "file:line (function)" into out[len]; 0 when it found one. It runs on
 * the thread that made the CUDA call, inside a CUPTI callback. */
typedef int perf__callsite_hook(char *out, size_t len);
/* Sets (NULL: clears) the hook perf__callsite_capture asks, on this
 * thread only: a call captured on another thread is named natively. Never
 * fails. */
void perf__callsite_set_hook(perf__callsite_hook *hook);

/* Index of the user's frame in frames[0..n) (innermost first): the first
 * frame in the executable after at least one frame outside it (the callback
 * itself runs in the executable, then CUPTI and CUDA libraries, then the
 * caller). in_exe[i] says where frame i is. -1 when there is none. */
int perf__callsite_pick(const int *in_exe, int n);

/* Captures the current call stack and fills s (and s->lang, from the hook
 * when one is set). Never fails (s->pc may be NULL when the stack cannot be
 * walked). */
void perf__callsite_capture(perf__callsite_site *s);

/* Resolves pcs[0..n) to "file:line" (function) through addr2line on this
 * executable, paths relative to the working directory where possible;
 * without debug information or addr2line, to "function+0xoff" or
 * "exe+0xoff". Writes out[i] (len bytes each) and line_no[i] (0 unknown).
 * Never fails. */
void perf__callsite_resolve(void *const *pcs, size_t n, char (*out)[256],
                        int *line_no);

/* Which of n resolved frames (innermost first, as perf__callsite_resolve
 * writes them) is the line the user wrote: the first, unless it is code
 * nvcc brings for a <<<...>>> launch: frames in the CUDA toolkit's headers
 * (cuda_runtime.h, crt/), then the launch stub nvcc writes
 * (__device_stub__..., in a .cudafe1.stub.c), then the kernel's host-side
 * function that calls it (at the kernel's own definition); the frame
 * above those. Never fails; 0 when nothing is to be skipped or n is too
 * short to skip it. */
int perf__callsite_choose(const char (*where)[256], int n);

/* Resolves one site like perf__callsite_resolve, naming the frame
 * perf__callsite_choose picks among it and the frames above it: for a
 * <<<...>>> launch, the line of the launch the user wrote. Never fails. */
void perf__callsite_name(const perf__callsite_site *s, char *out, size_t len, int *line_no);

/* A workload function that ends in its CUDA call may jump to it (a sibling
 * call): its frame is gone and the site lands in the framework's function
 * runner that called it. Then where[len] is rewritten to say so, naming
 * workload who; otherwise (or when who is NULL) it is left alone. Never
 * fails. */
void perf__callsite_tail_call(char *where, size_t len, const char *runner,
                          const char *who);

#endif
