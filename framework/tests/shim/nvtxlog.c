/* nvtxlog.c — an NVTX injection library that logs range pushes and pops to $PERFGATE_NVTX_LOG. */
#include <stdio.h>
#include <stdlib.h>

#include <nvtx3/nvToolsExt.h>

static FILE *log_file(void)
{
  static FILE *f;
  const char *path = getenv("PERFGATE_NVTX_LOG");
  if (!f && path) f = fopen(path, "a");
  return f;
}

static int push(const char *name)
{
  FILE *f = log_file();
  if (f) fprintf(f, "push %s\n", name), fflush(f);
  return 0;
}

static int pop(void)
{
  FILE *f = log_file();
  if (f) fputs("pop\n", f), fflush(f);
  return 0;
}

/* The entry point NVTX looks up in the library named by
 * NVTX_INJECTION64_PATH. Returns 1 when the callbacks are installed. */
int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table)
{
  const NvtxExportTableCallbacks *cb = get_table(NVTX_ETID_CALLBACKS);
  NvtxFunctionTable table = 0;
  unsigned int size = 0;
  if (!cb || !cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) ||
      size <= NVTX_CBID_CORE_RangePop)
    return 0;
  *table[NVTX_CBID_CORE_RangePushA] = (NvtxFunctionPointer)push;
  *table[NVTX_CBID_CORE_RangePop] = (NvtxFunctionPointer)pop;
  return 1;
}
