/* rtstart.c — whether the CUDA runtime has started in this process, seen without starting it. */
/* A watch on the runtime's one request for the driver library. */
#define _GNU_SOURCE
#include "worker/device/rtstart.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__)
#define SLOT_JUMP R_X86_64_JUMP_SLOT
#define SLOT_DATA R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define SLOT_JUMP R_AARCH64_JUMP_SLOT
#define SLOT_DATA R_AARCH64_GLOB_DAT
#endif

static atomic_int asked; /* the runtime asked for the driver library */
static int state;        /* 0 not installed yet, 1 watching, -1 could not */

/* 1 for the driver library (libcuda.so, libcuda.so.1), named or by path. */
static int is_driver(const char *file)
{
  const char *base = strrchr(file, '/');
  return !strncmp(base ? base + 1 : file, "libcuda.so", 10);
}

/* What libcudart calls instead of dlopen: notes a request for the driver
 * library, then loads exactly as asked (the search is the same: libcudart
 * has no RUNPATH of its own to lose). Fails as dlopen does. */
static void *watched_dlopen(const char *file, int mode)
{
  if (file && is_driver(file)) atomic_store(&asked, 1);
  return dlopen(file, mode);
}

#ifdef SLOT_JUMP
/* An address from a loaded object's dynamic section: some loaders relocate
 * them in place, others leave them relative to the object's base. */
static uintptr_t loaded(uintptr_t base, uintptr_t p) { return p < base ? base + p : p; }

/* The object's tables that name its imports. */
typedef struct imports {
  const ElfW(Sym) *sym;
  const char *str;
  const ElfW(Rela) *rel[2]; /* the PLT's relocations, the others */
  size_t bytes[2];
  int rela;                 /* the PLT's are RELA (else: not handled) */
  uintptr_t base, relro_lo, relro_hi;
} imports;

/* Reads the object's dynamic section into *im. Returns 0, or -1 when it
 * lacks what the watch needs. */
static int read_imports(const struct dl_phdr_info *info, imports *im)
{
  const ElfW(Dyn) *d = NULL;
  *im = (imports){.base = info->dlpi_addr, .rela = 1};
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    if (p->p_type == PT_DYNAMIC) d = (const ElfW(Dyn) *)(im->base + p->p_vaddr);
    if (p->p_type == PT_GNU_RELRO) {
      im->relro_lo = im->base + p->p_vaddr;
      im->relro_hi = im->relro_lo + p->p_memsz;
    }
  }
  for (; d && d->d_tag != DT_NULL; d++) {
    uintptr_t at = loaded(im->base, d->d_un.d_ptr);
    switch (d->d_tag) {
    case DT_SYMTAB: im->sym = (const ElfW(Sym) *)at; break;
    case DT_STRTAB: im->str = (const char *)at; break;
    case DT_JMPREL: im->rel[0] = (const ElfW(Rela) *)at; break;
    case DT_PLTRELSZ: im->bytes[0] = d->d_un.d_val; break;
    case DT_RELA: im->rel[1] = (const ElfW(Rela) *)at; break;
    case DT_RELASZ: im->bytes[1] = d->d_un.d_val; break;
    case DT_PLTREL: im->rela = d->d_un.d_val == DT_RELA; break;
    default: break;
    }
  }
  return im->sym && im->str && im->rela ? 0 : -1;
}

/* Points one import slot at watched_dlopen, lifting RELRO's read-only
 * protection for the write. Returns 0, or -1 when the page cannot be made
 * writable. */
static int point(const imports *im, void **slot)
{
  uintptr_t page = (uintptr_t)slot & ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1);
  size_t len = (size_t)sysconf(_SC_PAGESIZE);
  int relro = (uintptr_t)slot >= im->relro_lo && (uintptr_t)slot < im->relro_hi;
  if (mprotect((void *)page, len, PROT_READ | PROT_WRITE)) return -1;
  *(void *volatile *)slot = (void *)watched_dlopen; /* one aligned word: atomic */
  if (relro) mprotect((void *)page, len, PROT_READ);
  return 0;
}

/* dl_iterate_phdr's visitor: watches each libcudart.so.*'s dlopen slots;
 * *n counts the slots pointed. Never fails (an object it cannot read is
 * left alone). */
static int visit(struct dl_phdr_info *info, size_t size, void *n)
{
  const char *name = info->dlpi_name, *base = strrchr(name, '/');
  imports im;
  (void)size;
  if (strncmp(base ? base + 1 : name, "libcudart.so", 12) || read_imports(info, &im)) return 0;
  for (int t = 0; t < 2; t++)
    for (size_t i = 0; im.rel[t] && i < im.bytes[t] / sizeof *im.rel[t]; i++) {
      const ElfW(Rela) *r = &im.rel[t][i];
      unsigned type = (unsigned)ELF64_R_TYPE(r->r_info);
      if ((type == SLOT_JUMP || type == SLOT_DATA) &&
          !strcmp(im.str + im.sym[ELF64_R_SYM(r->r_info)].st_name, "dlopen") &&
          !point(&im, (void **)(im.base + r->r_offset)))
        ++*(int *)n;
    }
  return 0;
}
#endif

/* See rtstart.h. */
int perf__rtstart_watch(void)
{
  int n = 0;
  if (state) return state > 0 ? 0 : -1;
#ifdef SLOT_JUMP
  dl_iterate_phdr(visit, &n);
#endif
  state = n > 0 ? 1 : -1;
  return state > 0 ? 0 : -1;
}

/* See rtstart.h. */
int perf__rtstart_seen(void) { return state > 0 ? atomic_load(&asked) : -1; }
