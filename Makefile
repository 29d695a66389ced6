# perfgate — unit-test-style performance assertions for CUDA.
#
#   make                 libperfgate.a and build/perftest (the suite in perftests/)
#   make test            build and run the framework's own tests (no GPU needed)
#   make test-asan       the same tests under ASan + UBSan (build/asan)
#   make test-valgrind   the same tests under valgrind memcheck (build/valgrind; slow)
#   make perftest        build and run the perf tests (ARGS="--filter=... --verbose")
#   make baseline-update re-measure this machine's baseline file (5 runs each, more where an entry needs them; exit 1 names entries not written)
#   make check-baselines validate every file in baselines/ (no GPU, no CUDA: build/perfgate-baselines; exit 2 at a bad one)
#   make bench-fidelity  measure perfgate against ncu and do_bench (GPU; docs/fidelity.md)
#   make bench-compare   perfgate, nvbench (NVBENCH=binary) and do_bench side by side (GPU)
#   make bench-noise     the suite and A/A claims under injected CPU and GPU noise (GPU)
#   make bench-baselines planted 5-40 % slowdowns against a fresh baseline (GPU; docs/fidelity-baselines.md)
#   make bench-peaks     this GPU's spec peaks beside what perfgate's calibration achieves (GPU)
#   make bench-commit-noise --commit-report on unchanged code recorded N times (GPU; CN_HOST=1: host only)
#   make install         header, libraries (.a, .so), perfgate-baselines, pkg-config and CMake files under PREFIX (and DESTDIR)
#   make python          build/libperfgate.so, the library the Python package loads
#   make clean
#
# Variables: PERFTESTS=dir (perf tests to build), KERNELS=dir (their .cu files),
# CUDA_HOME, NVCC, CUDA_ARCH (sm_90), YAML_CFLAGS/YAML_LIBS, SQLITE_CFLAGS/SQLITE_LIBS,
# PQ_CFLAGS (libpq's headers; the library is loaded at run time), PREFIX, V=1.

# The version is written once, in perfgate.h's PERF_VERSION_* macros.
PERF_VERSION := $(shell sed -n 's/^\#define PERF_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$$/\2/p' framework/include/perfgate.h | paste -sd.)
# The ABI version (perfgate.h's PERF_ABI_VERSION) names libperfgate.so's soname.
PERF_ABI := $(shell sed -n 's/^\#define PERF_ABI_VERSION \([0-9]*\)$$/\1/p' framework/include/perfgate.h)

PERFTESTS ?= perftests
KERNELS   ?= kernels
BUILD     ?= build
PREFIX    ?= /usr/local
CUDA_ARCH ?= sm_90
ARGS      ?=

NVCC_FOUND := $(shell command -v nvcc 2>/dev/null)
CUDA_HOME  ?= $(if $(NVCC_FOUND),$(patsubst %/bin/nvcc,%,$(NVCC_FOUND)),/usr/local/cuda)
NVCC       ?= $(CUDA_HOME)/bin/nvcc
CUDA_LIB   ?= $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/targets/x86_64-linux/lib) $(CUDA_HOME)/lib64)
CUPTI_LIB  ?= $(firstword $(patsubst %/libcupti.so,%,$(wildcard $(CUDA_LIB)/libcupti.so $(CUDA_HOME)/extras/CUPTI/lib64/libcupti.so)) $(CUDA_LIB))
CUPTI_INC  ?= $(firstword $(patsubst %/cupti.h,%,$(wildcard $(CUDA_HOME)/include/cupti.h $(CUDA_HOME)/extras/CUPTI/include/cupti.h)) $(CUDA_HOME)/include)

YAML_CFLAGS ?= $(shell pkg-config --cflags yaml-0.1 2>/dev/null)
YAML_LIBS   ?= $(shell pkg-config --libs yaml-0.1 2>/dev/null)
SQLITE_CFLAGS ?= $(shell pkg-config --cflags sqlite3 2>/dev/null)
SQLITE_LIBS   ?= $(shell pkg-config --libs sqlite3 2>/dev/null)
PQ_CFLAGS     ?= $(shell pkg-config --cflags libpq 2>/dev/null || echo -I$$(pg_config --includedir 2>/dev/null))
PQ_HEADER     := $(firstword $(wildcard $(if $(filter -I%,$(PQ_CFLAGS)),$(patsubst -I%,%/libpq-fe.h,$(filter -I%,$(PQ_CFLAGS))),/usr/include/libpq-fe.h)))

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror
# framework/cshim (searched first): an empty <string>, which CUPTI 13.0's
# cupti_profiler_host.h includes although it is C (worker/sync/workcount.c).
# First, not last: where CPATH or an -I names a C++ library's folder (as on
# the GPU machine), C++'s own <string> would be found before it.
ALL_CFLAGS := -std=c11 $(WARN) $(CFLAGS) -Iframework/cshim -Iframework/include -I$(CUDA_HOME)/include -I$(CUPTI_INC) $(YAML_CFLAGS) $(SQLITE_CFLAGS) $(PQ_CFLAGS) -MMD -MP
NVCCFLAGS  ?= -O3
# Host code in .cu files keeps its line numbers and frames (-g: host debug
# information only), so that GPU work a launcher queues is named at its line.
ALL_NVCCFLAGS := -arch=$(CUDA_ARCH) $(NVCCFLAGS) -g -Xcompiler -Wall,-Wextra,-Werror,-fno-optimize-sibling-calls -MMD -MP
LDFLAGS ?=
comma   := ,
# The framework needs CUPTI and the runtime; cuBLAS only the tests that use it.
# Programs find them through a run path to this toolkit; libperfgate.so has
# none: the Python package finds them where the user's environment has them
# (python/perfgate/_deps.py).
SO_LDLIBS := -L$(CUDA_LIB) -L$(CUPTI_LIB) -lcupti -lcudart $(YAML_LIBS) $(SQLITE_LIBS) -lm -lpthread -ldl
FW_LDLIBS := -Wl,-rpath,$(CUDA_LIB) -Wl,-rpath,$(CUPTI_LIB) $(SO_LDLIBS)
LDLIBS  := -lcublas $(FW_LDLIBS)

ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-7s %s\n' $(1) $(2)
endif

# ---- prerequisites: one line naming what to install ----------------------------
GOALS := $(or $(MAKECMDGOALS),all)
# Goals built from the modules that need no CUDA (perfgate-baselines): a C
# compiler and libyaml, no toolkit, SQLite or libpq.
CPU_GOALS := check-baselines $(BUILD)/perfgate-baselines
NO_YAML := perfgate: libyaml not found: install libyaml-dev (apt-get install libyaml-dev) or set YAML_CFLAGS and YAML_LIBS
ifneq ($(filter-out clean help fuzz $(CPU_GOALS),$(GOALS)),)
ifeq ($(wildcard $(CUDA_HOME)/include/cuda_runtime_api.h),)
$(error perfgate: CUDA headers not found under '$(CUDA_HOME)': install the CUDA toolkit (13.x) or set CUDA_HOME)
endif
ifeq ($(wildcard $(CUDA_LIB)/libcudart.so),)
$(error perfgate: libcudart.so not found in '$(CUDA_LIB)': install the CUDA runtime (cuda-cudart-dev) or set CUDA_HOME)
endif
ifeq ($(wildcard $(CUDA_LIB)/libcublas.so),)
$(error perfgate: libcublas.so not found in '$(CUDA_LIB)': install cuBLAS (libcublas-dev) or set CUDA_HOME)
endif
ifeq ($(wildcard $(CUPTI_LIB)/libcupti.so),)
$(error perfgate: libcupti.so not found (looked in '$(CUPTI_LIB)'): install CUPTI (cuda-cupti-dev) or set CUPTI_LIB)
endif
ifeq ($(strip $(YAML_LIBS)),)
$(error $(NO_YAML))
endif
ifeq ($(strip $(SQLITE_LIBS)),)
$(error perfgate: SQLite not found: install libsqlite3-dev (apt-get install libsqlite3-dev) or set SQLITE_CFLAGS and SQLITE_LIBS)
endif
ifeq ($(PQ_HEADER),)
$(error perfgate: libpq-fe.h not found: install libpq-dev (apt-get install libpq-dev) or set PQ_CFLAGS=-I<dir with libpq-fe.h>)
endif
else ifneq ($(filter $(CPU_GOALS),$(GOALS)),)
ifeq ($(strip $(YAML_LIBS)),)
$(error $(NO_YAML))
endif
endif
ifneq ($(filter all perftest baseline-update bench-fidelity bench-compare bench-noise bench-commit-noise bench-peaks $(BUILD)/perftest,$(GOALS)),)
ifeq ($(shell command -v $(NVCC) 2>/dev/null),)
$(error perfgate: nvcc not found (looked for '$(NVCC)'): install the CUDA toolkit (nvcc) or set NVCC)
endif
ifneq ($(wildcard $(KERNELS)/*.image.cu),)
ifeq ($(shell command -v $(or $(BIN2C),$(CUDA_HOME)/bin/bin2c) 2>/dev/null),)
$(error perfgate: bin2c not found (looked for '$(or $(BIN2C),$(CUDA_HOME)/bin/bin2c)'): install the CUDA toolkit's nvcc package or set BIN2C)
endif
endif
endif

# ---- sources --------------------------------------------------------------------
LIB_SRCS  := $(wildcard framework/src/*.c framework/src/*/*.c framework/src/*/*/*.c)
LIB_OBJS  := $(LIB_SRCS:framework/src/%.c=$(BUILD)/obj/framework/%.o)
LIB       := $(BUILD)/libperfgate.a

PT_SRCS   := $(wildcard $(PERFTESTS)/*.c)
PT_OBJS   := $(PT_SRCS:$(PERFTESTS)/%.c=$(BUILD)/obj/perftests/%.o)
KRN_SRCS  := $(filter-out %.image.cu,$(wildcard $(KERNELS)/*.cu))
KRN_OBJS  := $(KRN_SRCS:$(KERNELS)/%.cu=$(BUILD)/obj/kernels/%.o)
# name.image.cu: a module kept out of the binary, compiled to a fatbin and
# embedded as bytes (build/gen/name.image.h: perf_image_name[]), so that a perf
# test can load it on purpose, e.g. to time a first call.
KRN_IMGS  := $(wildcard $(KERNELS)/*.image.cu)
KRN_IMG_H := $(KRN_IMGS:$(KERNELS)/%.image.cu=$(BUILD)/gen/%.image.h)
BIN2C     ?= $(CUDA_HOME)/bin/bin2c
.SECONDARY: $(KRN_IMG_H)

ST_SRCS   := $(wildcard framework/tests/*.c)
ST_OBJS   := $(ST_SRCS:framework/tests/%.c=$(BUILD)/obj/selftest/%.o)
CMAKE_FILES := $(BUILD)/cmake/perfgateConfig.cmake $(BUILD)/cmake/perfgateConfigVersion.cmake
FX_SRCS   := $(wildcard framework/tests/fixtures/*.c)
FX_OBJS   := $(FX_SRCS:framework/tests/fixtures/%.c=$(BUILD)/obj/fixtures/%.o)

# Relink build/perftest when the set of sources changes (another PERFTESTS=).
PT_LIST   := $(BUILD)/perftest.sources
$(shell mkdir -p $(BUILD); echo '$(abspath $(PT_SRCS) $(KRN_SRCS))' | cmp -s - $(PT_LIST) 2>/dev/null || echo '$(abspath $(PT_SRCS) $(KRN_SRCS))' > $(PT_LIST))

.PHONY: python all test test-asan test-valgrind test-binaries perftest baseline-update check-baselines bench-fidelity bench-compare bench-noise bench-baselines bench-commit-noise bench-peaks install clean help fuzz FORCE
all: $(LIB) $(BUILD)/perftest

python: $(BUILD)/libperfgate.so

help:
	@sed -n '3,22p' Makefile | sed 's/^# \{0,1\}//'

$(LIB): $(LIB_OBJS)
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/obj/framework/%.o: framework/src/%.c
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) -Iframework/src -c $< -o $@

# perfgate-baselines: --check-baselines from the modules that need no CUDA
# (framework/src/supervisor/baselinetool.h), compiled here without the toolkit's headers
# and linked with libyaml alone, so that CPU-only CI builds and runs it.
# BL_SRCS: the baseline loader and what it needs (also the fuzzer's).
BL_SRCS  := baseline/baseline.c baseline/blyaml.c host/clock.c io/file.c util/grow.c io/json.c \
            io/jsontree.c baseline/peaks.c util/progname.c stats/rng.c stats/stats.c util/status.c \
            baseline/trace.c util/units.c
BLT_SRCS := $(BL_SRCS) supervisor/baselinetool.c supervisor/baselinedir.c util/label.c \
            baseline/machine.c cli/options.c util/version.c report/roofline.c \
            report/hwmove.c report/tally.c
BLT_OBJS := $(BLT_SRCS:%.c=$(BUILD)/obj/cpu/%.o) $(BUILD)/obj/cpu/tools/baselines.o
BLT_CFLAGS := -std=c11 $(WARN) $(CFLAGS) -Iframework/include -Iframework/src $(YAML_CFLAGS) -MMD -MP

$(BUILD)/obj/cpu/tools/%.o: framework/tools/%.c
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D) && $(CC) $(BLT_CFLAGS) -c $< -o $@

$(BUILD)/obj/cpu/%.o: framework/src/%.c
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D) && $(CC) $(BLT_CFLAGS) -c $< -o $@

$(BUILD)/perfgate-baselines: $(BLT_OBJS)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(BLT_OBJS) $(YAML_LIBS) -lm

# libperfgate.so: the framework without main(), position-independent, for
# the Python package (python/: ctypes over perf_embed_*).
PIC_OBJS := $(filter-out %/main.o,$(LIB_SRCS:framework/src/%.c=$(BUILD)/pic/framework/%.o))
$(BUILD)/pic/framework/%.o: framework/src/%.c
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) -fPIC -Iframework/src -c $< -o $@

# Relinked when the Makefile changes (its link flags live here).
# Every symbol resolved at link time, except in a sanitizer build: there the
# sanitizer's runtime comes from the executable that loads the library.
SO_NOUNDEF := $(if $(findstring sanitize,$(CFLAGS)),,-Wl$(comma)--no-undefined)
$(BUILD)/libperfgate.so: $(PIC_OBJS) Makefile
	$(call say,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,libperfgate.so.$(PERF_ABI) $(SO_NOUNDEF) -o $@ $(PIC_OBJS) $(LDFLAGS) $(SO_LDLIBS)

# Perf tests keep their frames (no sibling-call jumps), so that a host sync
# is reported at the line that made it.
# -march=native: the CPU sides of CPU-vs-GPU claims use this host's vector
# units (the suite is built and run on the same machine); PT_ARCH= to drop it.
PT_ARCH   ?= -march=native
PT_CFLAGS := -fno-optimize-sibling-calls -fopenmp $(PT_ARCH)

$(BUILD)/obj/perftests/%.o: $(PERFTESTS)/%.c
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) $(PT_CFLAGS) -I$(KERNELS) -c $< -o $@

$(BUILD)/obj/kernels/%.o: $(KERNELS)/%.cu $(KRN_IMG_H)
	$(call say,NVCC,$<)
	$(Q)mkdir -p $(@D) && $(NVCC) $(ALL_NVCCFLAGS) -I$(KERNELS) -I$(BUILD)/gen -c $< -o $@

$(BUILD)/gen/%.image.h: $(KERNELS)/%.image.cu
	$(call say,FATBIN,$<)
	$(Q)mkdir -p $(@D) && $(NVCC) -arch=$(CUDA_ARCH) $(NVCCFLAGS) -fatbin $< -o $(@:.h=.fatbin) \
	  && $(BIN2C) --const --name perf_image_$* $(@:.h=.fatbin) > $@.tmp && mv $@.tmp $@

$(BUILD)/perftest: $(PT_OBJS) $(KRN_OBJS) $(LIB) $(PT_LIST)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -fopenmp -o $@ $(PT_OBJS) $(KRN_OBJS) $(LIB) $(LDLIBS) $(if $(KRN_OBJS),-lstdc++)

# bench-fidelity: a benchmark of the measurement itself (not a test).
$(BUILD)/obj/bench/%.o: bench/%.c
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) -Iframework/src -I$(KERNELS) -c $< -o $@

$(BUILD)/bench-fidelity: $(BUILD)/obj/bench/fidelity.o $(KRN_OBJS) $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(KRN_OBJS) $(LIB) $(LDLIBS) -lstdc++

# bench-peaks: the spec peaks beside what the calibration work achieves.
$(BUILD)/bench-peaks: $(BUILD)/obj/bench/peaks.o $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

bench-peaks: $(BUILD)/bench-peaks
	$(Q)$(BUILD)/bench-peaks

# The same kernels as a shared library, for triton.testing.do_bench (ctypes).
$(BUILD)/libperfkernels.so: $(KERNELS)/elementwise.cu $(KERNELS)/fill.cu $(KERNELS)/gemm.cu
	$(call say,NVCC,$@)
	$(Q)$(NVCC) $(ALL_NVCCFLAGS) -Xcompiler -fPIC -shared -I$(KERNELS) -o $@ $^ -L$(CUDA_LIB) -lcublas

bench-fidelity: $(BUILD)/bench-fidelity $(BUILD)/libperfkernels.so $(BUILD)/perftest
	$(Q)BUILD=$(BUILD) bash bench/fidelity.sh

# bench-compare: the same kernels timed by perfgate, nvbench and do_bench in
# interleaved processes (bench/compare.sh; NVBENCH=path from bench/nvbench-build.sh).
NVBENCH ?=
bench-compare: $(BUILD)/bench-fidelity $(BUILD)/libperfkernels.so
	$(Q)BUILD=$(BUILD) NVBENCH=$(NVBENCH) bash bench/compare.sh

# bench-noise: the suite and A/A claims beside CPU busy loops and a GPU
# co-tenant (bench/noise.sh; NOISE_RUNS, NOISE_AA, NOISE_INJECT, NOISE_FILTER,
# NOISE_OUT). noise-load is the injected load (bench/noise_load.c).
$(BUILD)/noise-load: $(BUILD)/obj/bench/noise_load.o $(KRN_OBJS) $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(KRN_OBJS) $(LIB) $(LDLIBS) -lstdc++

bench-noise: $(BUILD)/perftest $(BUILD)/bench-fidelity $(BUILD)/noise-load
	$(Q)BUILD=$(BUILD) bash bench/noise.sh

# bench-baselines: does a recorded baseline catch planted slowdowns of 2, 5
# and 10 % in fresh processes, and pass unchanged reruns? (bench/baselines.sh;
# BB_UNCHANGED, BB_PLANTED, BB_PLANTS, BB_PHASES, BB_FILTER, BB_OUT). Its
# workloads are perf tests (bench/baselines/cases.c), built as a perftest.
$(BUILD)/obj/bench-baselines/%.o: bench/baselines/%.c
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) $(PT_CFLAGS) -I$(KERNELS) -c $< -o $@

$(BUILD)/bench-baselines: $(BUILD)/obj/bench-baselines/cases.o $(KRN_OBJS) $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -fopenmp -o $@ $< $(KRN_OBJS) $(LIB) $(LDLIBS) -lstdc++

bench-baselines: $(BUILD)/bench-baselines
	$(Q)BUILD=$(BUILD) bash bench/baselines.sh

# bench-commit-noise: --commit-report on a history of unchanged code (one
# binary recorded at RUNS commits, then each commit's report), on the GPU
# suite or, with CN_HOST=1, on a host-clock suite (bench/commitnoise/cases.c);
# CN_RUNS, CN_OUT, CN_SLOW (a planted slowdown at the last commit). And the
# rule's rates by simulation (bench/commit_rates.c).
$(BUILD)/obj/bench-commitnoise/%.o: bench/commitnoise/%.c
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) $(PT_CFLAGS) -c $< -o $@

$(BUILD)/bench-commitnoise: $(BUILD)/obj/bench-commitnoise/cases.o $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -fopenmp -o $@ $< $(LIB) $(LDLIBS)

$(BUILD)/commit-rates: $(BUILD)/obj/bench/commit_rates.o $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(FW_LDLIBS)

bench-commit-noise: $(if $(CN_HOST),$(BUILD)/bench-commitnoise,$(BUILD)/perftest) $(BUILD)/commit-rates
	$(Q)BUILD=$(BUILD) CN_BIN=$(if $(CN_HOST),$(BUILD)/bench-commitnoise,$(BUILD)/perftest) bash bench/commit-noise.sh

$(BUILD)/obj/selftest/%.o: framework/tests/%.c
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) -Iframework/src -c $< -o $@

$(BUILD)/obj/fixtures/%.o: framework/tests/fixtures/%.c
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) $(PT_CFLAGS) -c $< -o $@

$(BUILD)/selftest: $(ST_OBJS) $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(ST_OBJS) $(LIB) $(FW_LDLIBS)

# The fixtures use cuBLAS (route.c), as a user's perf tests would.
$(BUILD)/fixture-perftest: $(FX_OBJS) $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -fopenmp -o $@ $(FX_OBJS) $(LIB) $(LDLIBS)

# Shims are preloaded or dlopen'ed into the tests' processes: never sanitized.
SHIM_CFLAGS = $(filter-out -fsanitize%,$(ALL_CFLAGS))
$(BUILD)/libnocupti.so: framework/tests/shim/nocupti.c
	$(call say,CC,$<)
	$(Q)$(CC) $(SHIM_CFLAGS) -fPIC -shared -o $@ $<

$(BUILD)/libnvtxlog.so: framework/tests/shim/nvtxlog.c
	$(call say,CC,$<)
	$(Q)$(CC) $(SHIM_CFLAGS) -fPIC -shared -o $@ $<

$(BUILD)/libfakenvml.so: framework/tests/shim/fakenvml.c
	$(call say,CC,$<)
	$(Q)$(CC) $(SHIM_CFLAGS) -fPIC -shared -o $@ $<

# The same as an older driver's NVML: no process list, no per-process utilisation.
$(BUILD)/libfakenvml-old.so: framework/tests/shim/fakenvml.c
	$(call say,CC,$<)
	$(Q)$(CC) $(SHIM_CFLAGS) -DFAKE_NVML_OLD -fPIC -shared -o $@ $<

# A driver library older than the runtime, for LD_LIBRARY_PATH=$(BUILD)/oldcuda.
$(BUILD)/oldcuda/libcuda.so.1: framework/tests/shim/oldcuda.c
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D) && $(CC) $(SHIM_CFLAGS) -fPIC -shared -Wl,-soname,libcuda.so.1 -o $@ $<

$(BUILD)/libpreempt.so: framework/tests/shim/preempt.c
	$(call say,CC,$<)
	$(Q)$(CC) $(SHIM_CFLAGS) -fPIC -shared -o $@ $< -ldl

$(BUILD)/libstoprename.so: framework/tests/shim/stoprename.c
	$(call say,CC,$<)
	$(Q)$(CC) $(SHIM_CFLAGS) -fPIC -shared -o $@ $< -ldl

TEST_BINS := $(BUILD)/selftest $(BUILD)/perfgate-baselines $(BUILD)/perfgate.pc $(BUILD)/fixture-perftest $(BUILD)/libnocupti.so $(BUILD)/libnvtxlog.so $(BUILD)/libfakenvml.so
TEST_BINS += $(BUILD)/oldcuda/libcuda.so.1 $(BUILD)/libpreempt.so $(BUILD)/libstoprename.so
TEST_BINS += $(BUILD)/libfakenvml-old.so
# The Python package's tests load libperfgate.so into python3, and the CMake
# example links it: not under the sanitizers (the interpreter would need their
# runtime preloaded, the example built against it too).
ifeq ($(findstring sanitize,$(CFLAGS)),)
TEST_BINS += $(BUILD)/libperfgate.so $(BUILD)/libperfgate_main.a $(CMAKE_FILES)
endif
test-binaries: $(TEST_BINS)
test: $(TEST_BINS)
	$(Q)$(BUILD)/selftest --fixture=$(BUILD)/fixture-perftest

# The same tests with every framework, test and fixture object under
# AddressSanitizer and UndefinedBehaviorSanitizer (in $(BUILD)/asan), or
# under valgrind's memcheck (in $(BUILD)/valgrind); either fails on any report
# (framework/tests/memcheck.sh).
SAN_BUILD  := $(BUILD)/asan
SAN_CFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
SAN_LDFLAGS := -fsanitize=address,undefined $(if $(findstring clang,$(shell $(CC) --version 2>/dev/null)),,-static-libasan -static-libubsan)
test-asan:
	$(Q)$(MAKE) --no-print-directory BUILD=$(SAN_BUILD) CFLAGS="$(SAN_CFLAGS)" LDFLAGS="$(SAN_LDFLAGS)" PT_ARCH= test-binaries
	$(Q)CFLAGS="$(SAN_CFLAGS)" LDFLAGS="$(SAN_LDFLAGS)" PT_ARCH= bash framework/tests/memcheck.sh asan $(SAN_BUILD)

# valgrind cannot run every instruction -march=native may emit: PT_ARCH= here.
VG_BUILD := $(BUILD)/valgrind
test-valgrind:
	$(Q)$(MAKE) --no-print-directory BUILD=$(VG_BUILD) CFLAGS="-O1 -g" PT_ARCH= test-binaries
	$(Q)CFLAGS="-O1 -g" PT_ARCH= bash framework/tests/memcheck.sh valgrind $(VG_BUILD)

# libFuzzer on the baseline loader, under ASan and UBSan (clang).
FUZZ_CC   ?= clang
FUZZ_RUNS ?= 1000000
FUZZ_SRCS := framework/tests/fuzz/fuzz_baseline.c $(addprefix framework/src/,$(BL_SRCS))
$(BUILD)/fuzz-baseline: $(FUZZ_SRCS)
	$(call say,FUZZCC,$@)
	$(Q)mkdir -p $(@D) && $(FUZZ_CC) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=undefined -Iframework/src -Iframework/include $(YAML_CFLAGS) $(FUZZ_SRCS) $(YAML_LIBS) -lm -o $@

fuzz: $(BUILD)/fuzz-baseline
	$(Q)rm -rf $(BUILD)/fuzz-corpus && cp -r framework/tests/fuzz/corpus $(BUILD)/fuzz-corpus
	$(Q)$(BUILD)/fuzz-baseline -runs=$(FUZZ_RUNS) -max_len=4096 $(BUILD)/fuzz-corpus

perftest: $(BUILD)/perftest
	$(Q)$(BUILD)/perftest $(ARGS)

# Re-measure this machine's baseline entries (5 runs each, up to --update-runs
# where an entry's runs have not settled) and rewrite its file with the entries
# of the tests that passed.
baseline-update: $(BUILD)/perftest
	$(Q)$(BUILD)/perftest --update-baselines $(ARGS)

# Every baseline file read and validated (schema, types, positions); no test
# runs and neither a GPU nor CUDA is needed, so CPU-only CI can run it.
check-baselines: $(BUILD)/perfgate-baselines
	$(Q)$(BUILD)/perfgate-baselines $(ARGS)

# Two pkg-config modules with the same content: perfgate for cc, and
# perfgate-nvcc for .cu files built by nvcc, which takes the host compiler's
# and linker's flags only in its -Xcompiler= and -Xlinker= forms, and links
# the shared runtime (-cudart=shared: the one the library calls); a -Wl,X in
# YAML_LIBS or SQLITE_LIBS (an rpath to a copy) is written there as -Xlinker=X.
PC_CFLAGS = -I$${includedir} -I$(CUDA_HOME)/include -g $(call pc_host,-fno-optimize-sibling-calls)
PC_LIBS   = -L$${libdir} -lperfgate -L$${cudalib} $(call pc_link,-rpath$(comma)$${cudalib}) -L$${cuptilib} $(call pc_link,-rpath$(comma)$${cuptilib}) -lcupti -lcublas -lcudart $(call pc_user,$(YAML_LIBS) $(SQLITE_LIBS)) -lm -lpthread -ldl
pc_host   = $(if $(NVCC_PC),-Xcompiler=$(1),$(1))
pc_link   = $(if $(NVCC_PC),-Xlinker=$(1),-Wl,$(1))
pc_user   = $(if $(NVCC_PC),$(patsubst -Wl$(comma)%,-Xlinker=%,$(1)),$(1))
$(BUILD)/perfgate.pc $(BUILD)/perfgate-nvcc.pc: FORCE
	$(call say,GEN,$@)
	$(Q)printf '%s\n' \
	  'prefix=$(PREFIX)' 'includedir=$${prefix}/include' 'libdir=$${prefix}/lib' \
	  'cudalib=$(CUDA_LIB)' 'cuptilib=$(CUPTI_LIB)' '' \
	  'Name: $(basename $(@F))' \
	  'Description: Unit-test-style performance assertions for CUDA$(if $(NVCC_PC), (for nvcc))' \
	  'Version: $(PERF_VERSION)' \
	  'Cflags: $(PC_CFLAGS)' \
	  'Libs: $(PC_LIBS)$(if $(NVCC_PC), -cudart=shared)' \
	  > $@
$(BUILD)/perfgate-nvcc.pc: NVCC_PC := 1

# main() alone, for the shared library's users (CMake's perfgate::perfgate).
# The shared library is installed under its soname only: no libperfgate.so
# link, so that -lperfgate (pkg-config) keeps linking libperfgate.a, main()
# inside.
$(BUILD)/libperfgate_main.a: $(BUILD)/obj/framework/main.o
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# The CMake package: the config with the version and ABI written in.
$(BUILD)/cmake/%.cmake: cmake/%.cmake.in framework/include/perfgate.h
	$(call say,GEN,$@)
	$(Q)mkdir -p $(@D) && sed -e 's/@PERF_ABI@/$(PERF_ABI)/g' -e 's/@PERF_VERSION@/$(PERF_VERSION)/g' \
	  -e 's/@PERF_VERSION_MAJOR@/$(firstword $(subst ., ,$(PERF_VERSION)))/g' $< > $@

CMDIR = $(DESTDIR)$(PREFIX)/lib/cmake/perfgate
install: $(LIB) $(BUILD)/libperfgate.so $(BUILD)/libperfgate_main.a $(BUILD)/perfgate-baselines $(BUILD)/perfgate.pc $(BUILD)/perfgate-nvcc.pc $(CMAKE_FILES)
	$(call say,INSTALL,$(DESTDIR)$(PREFIX))
	$(if $(findstring sanitize,$(CFLAGS)),@echo "perfgate: warning: installing a sanitizer build (CFLAGS has -fsanitize): libperfgate.so.$(PERF_ABI) loads only into a program built with the same sanitizers" >&2)
	$(Q)install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(CMDIR)
	$(Q)install -m 755 $(BUILD)/perfgate-baselines $(DESTDIR)$(PREFIX)/bin/
	$(Q)install -m 644 framework/include/perfgate.h $(DESTDIR)$(PREFIX)/include/
	$(Q)install -m 644 $(LIB) $(BUILD)/libperfgate_main.a $(DESTDIR)$(PREFIX)/lib/
	$(Q)install -m 755 $(BUILD)/libperfgate.so $(DESTDIR)$(PREFIX)/lib/libperfgate.so.$(PERF_ABI)
	$(Q)install -m 644 $(BUILD)/perfgate.pc $(BUILD)/perfgate-nvcc.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	$(Q)install -m 644 $(CMAKE_FILES) cmake/perfgateDiscoverTests.cmake cmake/perfgateDiscoverTestsImpl.cmake $(CMDIR)/

clean:
	$(call say,CLEAN,$(BUILD))
	$(Q)rm -rf $(BUILD)

-include $(wildcard $(BUILD)/obj/*/*.d $(BUILD)/obj/*/*/*.d $(BUILD)/obj/*/*/*/*.d $(BUILD)/pic/*/*.d $(BUILD)/pic/*/*/*.d $(BUILD)/pic/*/*/*/*.d)
