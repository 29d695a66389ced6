/* outputs.h — the files one command writes, checked up front so that no two are one file. */
/* Its reports, each GPU's with --devices, the --history file and SQLite's
 * files beside it. */
#ifndef PERF_OUTPUTS_H
#define PERF_OUTPUTS_H

#include <stddef.h>

#include "cli/options.h"
#include "report/report.h"

/* The file a report for GPU id is written to with --devices: path with
 * ".gpuK" before its extension, or at its end (r.xml: r.gpu0.xml; r:
 * r.gpu0), into out[len] (truncated to fit). Returns out; never fails. */
char *perf__outputs_device_path(const char *path, int id, char *out, size_t len);

/* The files a --devices child writes its reports to. */
typedef struct perf__outputs_gpu {
  char path[PERF__REPORT_NFORMATS + 1][4200]; /* each format's, then --plots' */
} perf__outputs_gpu;

/* Points cli's report paths (a --devices child's copy of the command line)
 * at GPU id's: each format's file NAME.gpuK.EXT (perf__outputs_device_path),
 * --plots' DIR/gpuK; the names are kept in names. Never fails (a name is
 * truncated to fit). */
void perf__outputs_for_gpu(perf__options_cli *cli, int id, perf__outputs_gpu *names);

/* Refuses two outputs of one command that are one file, before anything is
 * run or written: the reports (each report format's file, --plots'
 * directory, --merge's OUT; with devices[0..ndevices), each GPU's
 * name.gpuK files and --plots' DIR/gpuK, the name given itself only for a
 * merged format and --plots), the --history file (a SQLite path) and the
 * files SQLite keeps beside it (its -wal, -shm and -journal: SQLite
 * deletes or overwrites them), and --merge's inputs, which no report may
 * replace. Two paths are one file when they resolve to one (same device
 * and inode where it exists, else the same real directory and name: ./x
 * and x, a symlink and its target). Outputs written in place (a character
 * device, a FIFO, our own stdout) may be shared: nothing is replaced
 * there. Returns 0, or PERF__EUSAGE with both options, their paths and the
 * file in err[len]. */
int perf__outputs_check(const perf__options_cli *cli, const int *devices, int ndevices, char *err,
                        size_t len);

#endif
