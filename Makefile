# attnlab — one flat Makefile. `make help` lists the targets; docs/building.md says how to build
# on Linux (x86-64, arm64), on a Mac, and for arm64 from an x86-64 machine.
#
# What each folder builds into (sources are found by folder: a new .cpp needs no edit here):
#   tensor/ io/ autograd/ nn/ plots/ data/      -> $(B)/libattnlab.a, the library
#   training/ experiments/ analyses/ app/
#   phases/sections/                            -> $(B)/libphases.a, the phases' section bodies,
#                                                  shared by the phase programs and the tests
#   phases/ bench/ tools/                       -> one program per file: $(B)/<file name>
#   tests/<area>/                               -> $(B)/attnlab_tests, one Catch2 binary
#   tests/fuzz/                                 -> $(B)/fuzz_<name>, libFuzzer harnesses (make fuzz)
#
# Configurations build side by side, each in its own folder $(B), and never share an object:
#   make                        release: -O2 and ARCH_FLAGS        build/
#   make debug                  -O0 -g3, for gdb                   build/debug/
#   make asan                   the tests under ASan + UBSan       build/asan/
#   make fuzz                   the fuzz harnesses (clang)         build/fuzz/
#   ... BLAS=openblas           matmul through OpenBLAS            <folder>/openblas/
#   ... CXX=clang++             compiled by clang                  <folder>/clang/
#   ... CXX=aarch64-linux-gnu-g++   a cross-compiler               <folder>/aarch64/ (its target)
#
# Sections: the configuration and its flags; build speed (batches, precompiled header, -Og);
# the targets; the rules.

# ---- Configuration --------------------------------------------------------------------

CXX      ?= g++
MODE     ?= release
BLAS     ?=
# clang or GCC, asked of the compiler itself (a Mac's g++ is Apple clang): each gets only the
# flags it knows, and the two never share objects.
IS_CLANG := $(if $(findstring clang,$(shell $(CXX) --version 2>/dev/null)),1,)

# The machine the compiler builds for (its -dumpmachine, arm64 spelled aarch64) and this one.
TARGET_ARCH := $(subst arm64,aarch64,$(firstword $(subst -, ,$(shell $(CXX) -dumpmachine 2>/dev/null))))
HOST_ARCH   := $(subst arm64,aarch64,$(shell uname -m))
CROSS       := $(if $(filter-out $(HOST_ARCH),$(TARGET_ARCH)),1,)
# ARCH_FLAGS lets the kernels use every instruction this machine has (AVX-512 where there is
# one: tensor/vec_math.hpp picks its code by what the compiler may use). x86-64 spells it
# -march=native; on arm64 GCC and clang (Apple's too) both take -mcpu=native, which sets the
# architecture and the tuning. A cross-compiler gets nothing, since its target is not this
# machine, nor does an architecture not named here. `make ARCH_FLAGS=` builds programs that
# run on any CPU of the family.
ARCH_FLAGS ?= $(if $(CROSS),,$(if $(filter x86_64,$(TARGET_ARCH)),-march=native,$(if $(filter aarch64,$(TARGET_ARCH)),-mcpu=native)))

ifeq ($(MODE),release)
  B   := build
  # -fvect-cost-model=dynamic: at -O2, GCC 12 vectorises only loops that need no runtime alias
  # check, which leaves out most elementwise kernels. Vectorising them changes no result (GCC
  # never reorders a floating-point reduction without -ffast-math): a model trained with and
  # without it is byte-identical. bench/ab.sh times the two.
  OPT := -O2 $(ARCH_FLAGS) $(if $(IS_CLANG),,-fvect-cost-model=dynamic)
else ifeq ($(MODE),debug)
  B   := build/debug
  OPT := -O0 -g3
else ifeq ($(MODE),asan)
  B   := build/asan
  # GCC 12 warns falsely inside libstdc++'s std::regex (used by Catch2) under -fsanitize.
  SANITIZE := -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all \
              $(if $(IS_CLANG),,-Wno-maybe-uninitialized)
  # -g1: line tables only, all a sanitizer's report needs (file:line of every frame); full
  # debug information costs a fifth more compile time. The tests' own files compile at -O0:
  # their work is the library's, which stays at -O1, and Catch2's templates take four times
  # longer to compile at -O1 with debug information.
  OPT      := -O1 -g1 $(ARCH_FLAGS) $(SANITIZE)
  TEST_OPT := -O0 -g1 $(ARCH_FLAGS) $(SANITIZE)
else ifeq ($(MODE),fuzz)
  # libFuzzer's coverage on the library; the harnesses add -fsanitize=fuzzer when linked.
  B   := build/fuzz
  OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
else
  $(error MODE must be release, debug, asan or fuzz, not '$(MODE)')
endif

ifeq ($(IS_CLANG)$(filter fuzz,$(MODE)),1)
  B := $(B)/clang
endif

# STDLIB=libc++ builds against LLVM's standard library (clang only), the one a Mac has: CI
# builds with it so that nothing only GNU's libstdc++ provides slips in.
STDLIB ?=
ifeq ($(STDLIB),libc++)
  B := $(B)/libc++
  STDLIB_FLAGS := -stdlib=libc++
else ifneq ($(STDLIB),)
  $(error STDLIB must be empty or libc++, not '$(STDLIB)')
endif

ifeq ($(BLAS),openblas)
  B      := $(B)/openblas
  BLASDEF := -DATTNLAB_OPENBLAS
  LDLIBS += -lopenblas
else ifneq ($(BLAS),)
  $(error BLAS must be empty or openblas, not '$(BLAS)')
endif

ifeq ($(CROSS),1)
  B := $(B)/$(TARGET_ARCH)
endif

# No -ffast-math: it reorders reductions and breaks the -inf masking rule.
CXXFLAGS ?= $(OPT) -std=c++20 -Wall -Wextra -Wshadow -pthread
CPPFLAGS += -I. -MMD -MP $(BLASDEF)
LDFLAGS  += -pthread $(filter -fsanitize=%,$(OPT))
ifneq ($(STDLIB_FLAGS),)
  CXXFLAGS += $(STDLIB_FLAGS)
  LDFLAGS  += $(STDLIB_FLAGS)
endif

# Catch2 v2's single header, catch2/catch.hpp, is all the tests need beyond the compiler.
# Debian's catch2 puts it under /usr/include; elsewhere (a Mac) CATCH2_INCLUDE=DIR names the
# folder that holds catch2/catch.hpp.
CATCH2_INCLUDE ?=
CATCH_HDR := $(or $(CATCH2_INCLUDE),/usr/include)/catch2/catch.hpp

LIB_DIRS  := tensor io autograd nn plots data training experiments analyses app assets
LIB_SRCS  := $(wildcard $(LIB_DIRS:%=%/*.cpp))
PROG_SRCS := $(wildcard phases/*.cpp bench/*.cpp tools/*.cpp)
# A program with a folder of its own beside it (tools/tinygpt.cpp and tools/tinygpt/: one file per
# subcommand) links that folder's objects too.
TINYGPT_SRCS := $(wildcard tools/tinygpt/*.cpp)
PHASE_LIB_SRCS := $(wildcard phases/sections/*.cpp)
TEST_SRCS := $(filter-out tests/fuzz/%,$(wildcard tests/*/*.cpp))  # fuzz harnesses: make fuzz

# ---- Build speed ----------------------------------------------------------------------
# Three devices keep a clean build and a rebuild after an edit short. Each can be turned off
# to compare: bench/build_time.sh --target build HEAD:UNITY_BATCH=1 HEAD times a clean build
# without batches and with them (HEAD:PCH=0 likewise for the header), --touch FILE
# the rebuild after an edit; bench/object_times.sh shows where the compile time goes.
#
#  1. Batches (UNITY_BATCH, default 8; 1 = one object per file). The library compiles as
#     generated files, each #including a run of UNITY_BATCH sources of one folder in name
#     order ($(B)/obj/batches/nn_2.cpp). Every library file parses the same standard headers
#     and compiles the same inline functions again; a batch does that once for all its files.
#     The price is that an edit recompiles its whole batch. The phases' section bodies batch
#     the same way, one object per phase (phases/sections/phase4_*.cpp together).
#  2. A precompiled header (PCH=1, GCC only). Every narrative object (below) begins by
#     parsing phases/phase_common.hpp, most of the library's headers; it is parsed once into
#     $(B)/pch/narrative.hpp.gch. Not for the library or the tests: each of their files
#     includes a few headers, and reading the large .gch costs what it would save. clang
#     builds use no prefix, so they catch a file that forgets its #include.
#  3. -Og for the narrative (NARRATIVE_OPT). The phase programs, their sections, tools/ and
#     the library's narrative folders (LIB_NARRATIVE_DIRS: the training loops, experiments,
#     analyses, the command line, the toy corpora and plots/' chart layout) call the kernels
#     and print, record and draw what comes back: code that runs once, on which -O2 spends
#     most of its compile time. The kernels (tensor/, nn/, autograd/, io/ and plots/' pixel
#     loops, PIXEL_SRCS, through which every figure's pixels pass), the benchmarks and the
#     tests stay at -O2. -Og never contracts a * b + c into one fused multiply-add as -O2
#     does, so a recorded number that would depend on it calls std::fma itself (phase 4's
#     unigram entropy, plots' fit_power_law), and make check-metrics finds every number the
#     phases record the same. clang contracts within an expression at any level; it gets -O1.
UNITY_BATCH ?= 8
PCH ?= 1
NARRATIVE_OPT := $(if $(filter release,$(MODE)),$(if $(IS_CLANG),-O1,-Og) $(ARCH_FLAGS),$(OPT))
LIB_NARRATIVE_DIRS := training experiments analyses app data plots
PIXEL_SRCS := $(addprefix plots/,canvas.cpp checksum.cpp deflate.cpp lzw.cpp png.cpp quantize.cpp)

ifeq ($(shell [ "$(UNITY_BATCH)" -ge 1 ] 2>/dev/null && echo ok),)
  $(error UNITY_BATCH must be a whole number of files, 1 or more, not '$(UNITY_BATCH)')
endif
BATCH_NEXT  := $(shell echo $$(($(UNITY_BATCH) + 1)))
empty :=
space := $(empty) $(empty)
comma := ,
# $(call batches,dir,files,counter): one word "dir_N:f1,f2,..." per run of UNITY_BATCH files.
batches = $(if $(2),$(1)_$(words x $(3)):$(subst $(space),$(comma),$(strip $(wordlist 1,$(UNITY_BATCH),$(2)))) \
            $(call batches,$(1),$(wordlist $(BATCH_NEXT),$(words $(2)),$(2)),$(3) x))
# plots/' pixel loops form batches of their own, "pixels", kept at -O2.
LIB_BATCH_LIST := $(foreach d,$(LIB_DIRS),$(call batches,$(d),$(filter-out $(PIXEL_SRCS),$(sort $(wildcard $(d)/*.cpp))),)) \
                  $(call batches,pixels,$(PIXEL_SRCS),)
LIB_BATCHES    := $(foreach b,$(LIB_BATCH_LIST),$(firstword $(subst :, ,$(b))))
batch_files     = $(subst $(comma), ,$(word 2,$(subst :, ,$(filter $(1):%,$(LIB_BATCH_LIST)))))
LIB_OBJS  := $(LIB_BATCHES:%=$(B)/obj/batches/%.o)
TEST_OBJS := $(TEST_SRCS:%.cpp=$(B)/obj/%.o)
PROGS     := $(addprefix $(B)/,$(basename $(notdir $(PROG_SRCS))))
LIB       := $(B)/libattnlab.a
SECTION_GROUPS := $(sort $(foreach f,$(PHASE_LIB_SRCS),$(firstword $(subst _, ,$(basename $(notdir $(f)))))))
PHASE_LIB_OBJS := $(SECTION_GROUPS:%=$(B)/obj/phases/sections/%.o)
PHASE_LIB := $(B)/libphases.a
TESTS     := $(B)/attnlab_tests
CATCH_MAIN := $(B)/obj/tests/catch_main.o

PHASE_PROGS := $(basename $(notdir $(wildcard phases/phase*.cpp)))
PHASES      := $(foreach p,$(PHASE_PROGS),$(firstword $(subst _, ,$(p))))

# ---- Targets --------------------------------------------------------------------------

.PHONY: all build programs shakespeare test debug debug-programs asan fuzz fuzz-build fuzz-replay bench bench-compare plots-demo train gallery test-browser \
        readme-figures help clean metrics-reference check-metrics compile_commands.json
.DEFAULT_GOAL := all

# `make all` compiles, trains the three checkpoints and runs the phase programs as many at a
# time as there are cores. Each of them then runs its kernels on one thread
# (ATTNLAB_NUM_THREADS=1 unless set): two programs with two threads each would oversubscribe
# the cores, every op that waits for a descheduled worker would stall, and the speed-ups the
# phases measure (phase 4's KV cache) would mean nothing. Results are the same bits at any
# thread count (tests/phases/metrics_reference.json passes at 1 and 2).
JOBS ?= $(shell nproc 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null || echo 2)
# ...unless the caller chose with -j: then the jobserver is already there to share.
PARALLEL = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(JOBS))

## all         build, then run every phase program and demo, writing out/ and out/index.html (the main job)
# One make over the whole job, so no core waits for a stage to end: a program runs as soon as
# it and the models it reads exist. Phase 5 reads no checkpoint and runs longest, so it starts
# first; training needs only build/tinygpt; phases 1-4 wait for their models (PHASE_MODELS).
# --output-sync prints each target's printout whole when it ends (each writes only its own
# out/phaseN/ and out/data/ files, or its checkpoint). It builds only what it runs, and what
# README's "Run your own experiment" runs (build/seq2seq); `make build` builds everything.
ALL_PROGS := $(addprefix $(B)/,$(PHASE_PROGS) tinygpt seq2seq plots_demo gallery)
ALL_STEPS := $(filter phase5,$(PHASES)) train $(filter phase4,$(PHASES)) plots-demo $(filter-out phase5 phase4,$(PHASES))
all:
	@ATTNLAB_NUM_THREADS=$${ATTNLAB_NUM_THREADS:-1} $(MAKE) --no-print-directory $(PARALLEL) --output-sync=target $(ALL_STEPS) $(ALL_PROGS)
	@$(MAKE) --no-print-directory gallery
	@echo "all: open out/index.html"

## test-browser  check out/phase3/explorer.html in headless Chromium (installs Debian's chromium if missing)
test-browser: $(B)/browser_test $(B)/phase3_visualization
	@test -f out/phase3/explorer.html || $(B)/phase3_visualization
	tools/browser_test.sh $(B)/browser_test

## gallery     draw out/summary_all_phases and write out/index.html from what the phases wrote
gallery: $(B)/gallery
	$(B)/gallery --out out

## build       build the library and every program (release; make test builds the test binary)
build: programs

programs: $(PROGS)

## test        build and run the whole Catch2 test suite (it spawns the phase programs, so builds them too)
test: $(TESTS) $(addprefix $(B)/,$(PHASE_PROGS))
	$(TESTS) $(TEST_ARGS)

## check-metrics      after make all: every non-timing number in out/phaseN/metrics.json equals the reference
check-metrics: $(B)/metrics_reference
	$(B)/metrics_reference check out tests/phases/metrics_reference.json

## metrics-reference  after make all: record out/ as the reference (when a change is meant to move the numbers)
metrics-reference: $(B)/metrics_reference
	$(B)/metrics_reference write out tests/phases/metrics_reference.json

## debug       build every program and the tests with -O0 -g3 into build/debug/ (for gdb)
debug:
	@$(MAKE) --no-print-directory MODE=debug programs build/debug/$(if $(BLAS),openblas/)attnlab_tests

## debug-programs  the same without the tests: what gdb needs to step through a program
debug-programs:
	@$(MAKE) --no-print-directory MODE=debug programs

## asan        build and run the test suite under AddressSanitizer + UndefinedBehaviorSanitizer
asan:
	@$(MAKE) --no-print-directory MODE=asan test

## fuzz        run every libFuzzer harness in tests/fuzz/ for FUZZ_SECONDS each (default 60; or FUZZ_BUDGET
##             seconds shared among them), after replaying tests/fuzz/regressions/; needs clang
##             (Debian: clang libclang-rt-14-dev)
FUZZ_TARGETS := $(basename $(notdir $(wildcard tests/fuzz/fuzz_*.cpp)))
FUZZ_BUDGET  ?=
FUZZ_SECONDS ?= $(if $(FUZZ_BUDGET),$(shell t=$(words $(FUZZ_TARGETS)); n=$$(( $(FUZZ_BUDGET) / (t > 0 ? t : 1) )); echo $$(( n > 0 ? n : 1 ))),60)
FUZZ_CXX     ?= clang++
fuzz:
	@$(MAKE) --no-print-directory MODE=fuzz CXX=$(FUZZ_CXX) fuzz-build
	@tests/fuzz/run.sh build/fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

## fuzz-replay replay every saved input in tests/fuzz/regressions/ (no fuzzing)
fuzz-replay:
	@$(MAKE) --no-print-directory MODE=fuzz CXX=$(FUZZ_CXX) fuzz-build
	@tests/fuzz/run.sh build/fuzz 0 $(FUZZ_TARGETS)

fuzz-build: $(addprefix $(B)/,$(FUZZ_TARGETS))

$(addprefix $(B)/,$(FUZZ_TARGETS)): $(B)/%: $(B)/obj/tests/fuzz/%.o $(LIB)
	$(CXX) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

## bench       run the benchmarks (W5 matmul GFLOP/s); JSON goes to out/bench/
bench: $(B)/bench_matmul
	$(B)/bench_matmul

## bench-compare  attnlab beside tuned PyTorch (../shared/bench/torch_peer.py), interleaved rounds, ratio table
bench-compare:
	bench/compare.sh

## train       train the three toy models into out/checkpoints/ (make -j2 train runs two at once)
CHECKPOINTS := $(addprefix out/checkpoints/,causal_model.safetensors single_head_model.safetensors multi_head_model.safetensors)
train: $(CHECKPOINTS)
out/checkpoints/%_model.safetensors: | $(B)/tinygpt
	$(B)/tinygpt train --model $(subst _,-,$*) --out $@

## readme-figures  copy the figures README and docs/ show from out/ into docs/figures/ (after make all; commit them)
readme-figures:
	@missing=""; for f in $$(grep -oh 'figures/[^)" ]*\.png' README.md docs/*.md | sort -u); do \
	  src=out/$${f#figures/}; f=docs/$$f; \
	  if [ -f $$src ]; then mkdir -p $$(dirname $$f) && cp $$src $$f && echo "  $$src -> $$f"; else missing="$$missing $$src"; fi; \
	done; \
	test -z "$$missing" || { echo "readme-figures: missing$$missing: run make all first (make test-browser for the explorer screenshot)"; exit 1; }

## shakespeare nanoGPT's CPU recipe on tiny Shakespeare (data/tinyshakespeare.txt): train 2000 steps into
##             out/shakespeare/ (once), print samples, draw the heads; not part of make all (minutes)
shakespeare: $(B)/tinygpt
	tools/shakespeare.sh $(B) out/shakespeare

## plots-demo  draw one SVG + PNG of every chart type (and a GIF) into out/plots_demo/
plots-demo: $(B)/plots_demo
	$(B)/plots_demo --out out/plots_demo

## phaseN      run phase N's program (writes out/phaseN/; trains the models it reads first if they are missing)
# The checkpoints each phase reads by default (phase 5 trains its own seq2seq models). A phase
# would train a missing one itself (lab::load_or_train, the same run as `make train`'s); as a
# prerequisite it is trained once, by make, before the phase starts, however many phases read it.
PHASE_MODELS_phase1 := single_head
PHASE_MODELS_phase2 := single_head multi_head
PHASE_MODELS_phase3 := causal multi_head
PHASE_MODELS_phase4 := causal
PHASE_MODELS_phase6 := causal
define phase_rule
$(1): $(B)/$(2) $(foreach m,$(PHASE_MODELS_$(1)),out/checkpoints/$(m)_model.safetensors)
	$(B)/$(2)
endef
$(foreach p,$(PHASE_PROGS),$(eval $(call phase_rule,$(firstword $(subst _, ,$(p))),$(p))))

## compile_commands.json  write it for clangd, VS Code and CLion: every source with this configuration's flags
# Each source is listed as itself (not as its batch), so an editor opens the file you read.
# Rewritten on every call: `make compile_commands.json CXX=clang++` describes the clang build.
CDB_SRCS    := $(LIB_SRCS) $(PHASE_LIB_SRCS) $(PROG_SRCS) $(TINYGPT_SRCS) tests/catch_main.cpp $(TEST_SRCS) $(wildcard tests/fuzz/*.cpp)
json_string  = "$(subst ",\",$(subst \,\\,$(1)))"
cdb_entry    = {"directory": $(call json_string,$(CURDIR)), "file": $(call json_string,$(1)), "command": $(call json_string,$(CXX) \
               $(filter-out -MMD -MP,$(CPPFLAGS)) $(if $(filter tests/%,$(1)),$(TEST_CPPFLAGS)) $(CXXFLAGS) -c $(1))}
compile_commands.json:
	$(file > $@,[$(call cdb_entry,$(firstword $(CDB_SRCS))))
	$(foreach f,$(wordlist 2,$(words $(CDB_SRCS)),$(CDB_SRCS)),$(file >> $@,$(comma)$(call cdb_entry,$(f))))
	$(file >> $@,])
	@echo "compile_commands.json: $(words $(CDB_SRCS)) files, compiled by $(CXX) as in $(B)/"

## help        list the targets
help:
	@echo "attnlab make targets (BLAS=openblas before any of them routes matmul to OpenBLAS):"
	@sed -n -e 's/^## \([^ ]\)/  make \1/p' -e 's/^##  /       /p' $(MAKEFILE_LIST)

## clean       remove build/ and out/
clean:
	rm -rf build out

# ---- Rules ----------------------------------------------------------------------------

# Made afresh: `ar r` into an old archive would keep members whose source is gone (or which
# are now compiled in a batch), and the linker would find their symbols twice.
$(LIB): $(LIB_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $^

# On top of the library, below the phase programs: the sections shared by a phase's program
# and the tests, so touching one phase's .cpp recompiles only its own table of contents.
$(PHASE_LIB): $(PHASE_LIB_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $^

# Static pattern rules: each applies only to its own programs. A bare `$(B)/%:` rule would
# match every file under build/, and make would try it (chained with `$(B)/obj/%.o: %.cpp`)
# on every included .d file.
programs_in = $(addprefix $(B)/,$(basename $(notdir $(wildcard $(1)/*.cpp))))
$(call programs_in,phases): $(B)/%: $(B)/obj/phases/%.o $(PHASE_LIB) $(LIB)
	$(CXX) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(call programs_in,bench): $(B)/%: $(B)/obj/bench/%.o $(LIB)
	$(CXX) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(call programs_in,tools): $(B)/%: $(B)/obj/tools/%.o $(LIB)
	$(CXX) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIB) $(LDLIBS)
$(B)/tinygpt: $(TINYGPT_SRCS:%.cpp=$(B)/obj/%.o)

# The command-line tests (tests/tools/) run the programs of the same configuration.
$(TESTS): $(CATCH_MAIN) $(TEST_OBJS) $(PHASE_LIB) $(LIB) | $(PROGS)
	$(CXX) $(LDFLAGS) -o $@ $^ $(LDLIBS)
# Test files find Catch2 in CATCH2_INCLUDE and the programs they spawn in ATTNLAB_BUILD_DIR.
TEST_CPPFLAGS := $(if $(CATCH2_INCLUDE),-isystem $(CATCH2_INCLUDE)) -DATTNLAB_BUILD_DIR='"$(CURDIR)/$(B)"' \
                 -DATTNLAB_SOURCE_DIR='"$(CURDIR)"'
$(CATCH_MAIN) $(TEST_OBJS): CPPFLAGS += $(TEST_CPPFLAGS)
ifneq ($(TEST_OPT),)
$(CATCH_MAIN) $(TEST_OBJS): private OPT := $(TEST_OPT)
endif

# Relocatable programs: no path of this checkout is compiled into them (only the tests know it),
# and the files they read at run time are compiled in (assets/assets.hpp): this rule writes each
# file of ASSETS as {"path", R"asset(bytes)asset"}, refusing one whose bytes would end the literal.
ASSETS := explorer/explorer.html explorer/explorer.css explorer/model.js explorer/gradients.js explorer/explorer.js \
          data/toy_sequences.txt
ASSET_OBJS := $(filter $(B)/obj/batches/assets_%,$(LIB_OBJS))
$(B)/gen/assets.inc: $(ASSETS)
	@mkdir -p $(@D)
	@if grep -l ')asset"' $^; then echo "the files above hold )asset\" and cannot be embedded" >&2; exit 1; fi
	@for f in $^; do printf '{"%s", R"asset(' $$f; cat $$f; printf ')asset"},\n'; done > $@.tmp && mv $@.tmp $@
$(ASSET_OBJS): $(B)/gen/assets.inc
$(ASSET_OBJS): CPPFLAGS += -I$(B)/gen

# Objects depend on the flags that made them: $(B)/flags holds the compile command,
# rewritten (so newer than every object) only when it changes, e.g. a new OPT or CXXFLAGS;
# not by `make -n` (which would else leave every object out of date for the next real make:
# a dry run with other flags therefore lists no rebuild that the flags alone cause).
FLAGS_FILE := $(B)/flags
FLAGS_NOW  := $(CXX) $(CPPFLAGS) $(CXXFLAGS) narrative: $(NARRATIVE_OPT) $(LIB_NARRATIVE_DIRS)$(if $(TEST_OPT), tests: $(TEST_OPT))
DRY_RUN    := $(findstring n,$(firstword -$(MAKEFLAGS)))
ifeq ($(DRY_RUN),)
ifneq ($(FLAGS_NOW),$(file < $(FLAGS_FILE)))
  $(shell mkdir -p $(B))
  $(file > $(FLAGS_FILE),$(FLAGS_NOW))
endif
endif
# ...and again if it is missing when a rule needs it (after `make clean` in the same make).
$(FLAGS_FILE):
	$(shell mkdir -p $(@D))$(file > $@,$(FLAGS_NOW))

# The narrative objects get $(NARRATIVE_OPT) (Build speed, 3). `private`: a target-specific
# variable would otherwise pass to the target's prerequisites, here the precompiled header.
NARRATIVE_OBJS := $(PHASE_PROGS:%=$(B)/obj/phases/%.o) $(PHASE_LIB_OBJS) \
                  $(patsubst %.cpp,$(B)/obj/%.o,$(wildcard tools/*.cpp) $(TINYGPT_SRCS))
$(NARRATIVE_OBJS): private OPT := $(NARRATIVE_OPT)
LIB_NARRATIVE := $(filter $(LIB_NARRATIVE_DIRS:%=$(B)/obj/batches/%_%),$(LIB_OBJS))
$(LIB_NARRATIVE): private OPT := $(NARRATIVE_OPT)

# The precompiled header (Build speed, 2). `-include $(B)/pch/narrative.hpp` finds
# narrative.hpp.gch beside it, made with the same flags (-Winvalid-pch says so if it cannot
# use it).
ifeq ($(IS_CLANG)$(filter-out 1,$(PCH)),)
$(NARRATIVE_OBJS): $(B)/pch/narrative.hpp.gch
$(NARRATIVE_OBJS): private PCH_FLAGS := -include $(B)/pch/narrative.hpp -Winvalid-pch
endif
$(B)/pch/narrative.hpp:
	@mkdir -p $(@D)
	@printf '#include "phases/phase_common.hpp"\n' > $@
$(B)/pch/narrative.hpp.gch: private OPT := $(NARRATIVE_OPT)
$(B)/pch/narrative.hpp.gch: $(B)/pch/narrative.hpp $(FLAGS_FILE)
	$(CXX) $(CPPFLAGS) $(CXXFLAGS) -x c++-header $< -o $@

$(B)/obj/%.o: %.cpp $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(CXX) $(CPPFLAGS) $(CXXFLAGS) $(PCH_FLAGS) -c $< -o $@

# The generated files that #include a run of others (Build speed, 1): a library batch and a
# phase's section bodies. Each is written while make reads this Makefile, and only when its
# list of files changes, so its object recompiles only then or when a file it includes changes
# (the .d file lists them); as rules they would run, and recompile, after any edit.
hash := \#
define newline


endef
# $(call unit_text,files): the #include lines; $(call write_unit,path,text): write when different.
unit_text = $(foreach f,$(1),$(hash)include "$(f)"$(newline))
same_text = $(if $(subst x$(strip $(1)),,x$(strip $(2)))$(subst x$(strip $(2)),,x$(strip $(1))),,1)
write_unit = $(if $(call same_text,$(file < $(1)),$(2)),,$(shell mkdir -p $(dir $(1)))$(file > $(1),$(2)))
section_files = $(filter phases/sections/$(1)_%,$(PHASE_LIB_SRCS))
$(foreach b,$(LIB_BATCHES),$(call write_unit,$(B)/obj/batches/$(b).cpp,$(call unit_text,$(call batch_files,$(b)))))
$(foreach g,$(SECTION_GROUPS),$(call write_unit,$(B)/obj/phases/sections/$(g).cpp,$(call unit_text,$(call section_files,$(g)))))
# ...and again if one is missing when a rule needs it (after `make clean` in the same make;
# make expands a whole recipe before running it, so the directory is made inside the expansion).
$(LIB_BATCHES:%=$(B)/obj/batches/%.cpp): $(B)/obj/batches/%.cpp:
	$(shell mkdir -p $(@D))$(file > $@,$(call unit_text,$(call batch_files,$*)))
$(LIB_OBJS): $(B)/obj/batches/%.o: $(B)/obj/batches/%.cpp $(FLAGS_FILE)
	$(CXX) $(CPPFLAGS) $(CXXFLAGS) -c $< -o $@

SECTION_UNITS := $(SECTION_GROUPS:%=$(B)/obj/phases/sections/%.cpp)
$(SECTION_UNITS): $(B)/obj/phases/sections/%.cpp:
	$(shell mkdir -p $(@D))$(file > $@,$(call unit_text,$(call section_files,$*)))
$(PHASE_LIB_OBJS): $(B)/obj/phases/sections/%.o: $(B)/obj/phases/sections/%.cpp $(FLAGS_FILE)
	$(CXX) $(CPPFLAGS) $(CXXFLAGS) $(PCH_FLAGS) -c $< -o $@

$(CATCH_MAIN) $(TEST_OBJS): | $(CATCH_HDR)

$(CATCH_HDR):
	@if [ -z "$(CATCH2_INCLUDE)" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "Catch2 is missing: installing Debian's catch2"; \
	  apt-get install -y catch2 || { apt-get update && apt-get install -y catch2; }; \
	else \
	  echo "Catch2 v2 ($@) is missing. On Debian or Ubuntu: sudo apt-get install -y catch2;"; \
	  echo "elsewhere put Catch2 v2's single header in DIR/catch2/catch.hpp and add CATCH2_INCLUDE=DIR (docs/building.md)"; exit 1; \
	fi

.SECONDARY:
-include $(B)/pch/narrative.hpp.d $(LIB_OBJS:.o=.d) $(PHASE_LIB_OBJS:.o=.d) $(TEST_OBJS:.o=.d) $(FUZZ_TARGETS:%=$(B)/obj/tests/fuzz/%.d) $(CATCH_MAIN:.o=.d) $(PROG_SRCS:%.cpp=$(B)/obj/%.d) $(TINYGPT_SRCS:%.cpp=$(B)/obj/%.d)
