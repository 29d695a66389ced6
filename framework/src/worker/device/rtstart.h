/* rtstart.h — whether the CUDA runtime has started in this process, seen without starting it. */
#ifndef PERF_RTSTART_H
#define PERF_RTSTART_H

/* The CUDA runtime (libcudart) loads the driver library, libcuda.so.1,
 * once: at its first call in the process, whatever the call and whichever
 * thread makes it. Asking the runtime anything (even cudaGetLastError)
 * starts it, and once it has failed to start (no NVIDIA driver) every
 * call on every thread returns that same error: the runtime itself cannot
 * tell whether a piece of code called it. The watch can: libcudart's
 * calls to dlopen go through a function of ours that notes a request for
 * libcuda before loading it exactly as asked. */

/* Installs the watch on every loaded libcudart.so.* (once; later calls do
 * nothing). A start before the watch is not seen (libcuda.so.1 being
 * loaded says nothing: cuBLASLt loads it as it is loaded itself). Returns
 * 0, or -1 when no libcudart could be watched (a runtime linked
 * statically into the program; an object file format it does not know):
 * then perf__rtstart_seen says -1. */
int perf__rtstart_watch(void);

/* 1 once the runtime has asked for the driver library (it has started,
 * or tried to), 0 before, -1 when the watch is not installed. Never
 * fails; an atomic load. */
int perf__rtstart_seen(void);

#endif
