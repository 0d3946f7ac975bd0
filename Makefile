# attnlab — one flat Makefile.  `make help` lists every target.
#
# Sources are found by folder, so adding a file needs no edit here:
#   tensor/ io/ autograd/ nn/ plots/ data/ training/ experiments/ analyses/ app/
#                                  *.cpp -> the library, compiled UNITY_BATCH files to an
#                                            object (build/obj/batches/), linked statically
#   phases/ bench/ tools/          *.cpp  -> one program each, named after the file (build/<name>)
#   phases/sections/               *.cpp  -> build/libphases.a: the phases' section bodies, compiled
#                                            once (not in every phase program that includes their header),
#                                            one object per phase (phase4_*.cpp together)
#   tests/<area>/                  *.cpp  -> one Catch2 binary (build/attnlab_tests), main prebuilt once
#
# Configurations build side by side and never share objects:
#   make            release  -O2 -march=native      -> build/
#                   (phases/, phases/sections/ and tools/ at -Og with a precompiled
#                   phase_common.hpp, and the library's narrative folders at -Og:
#                   see NARRATIVE_OPT, LIB_NARRATIVE and PCH below)
#   make debug      -O0 -g3 (for stepping in gdb)   -> build/debug/
#   make asan       ASan + UBSan test suite         -> build/asan/
#   BLAS=openblas   matmul via cblas_sgemm/dgemm    -> build/openblas/ (or build/debug/openblas, ...)
#   CXX=clang++     the same with clang             -> build/clang/ (or build/asan/clang, ...)
#   make fuzz       libFuzzer harnesses (clang)     -> build/fuzz/

CXX      ?= g++
MODE     ?= release
BLAS     ?=
# clang or gcc: the two never share objects, and each gets only the flags it knows.
IS_CLANG := $(if $(findstring clang,$(CXX)),1,)

ifeq ($(MODE),release)
  B   := build
  OPT := -O2 -march=native $(if $(IS_CLANG),,-fvect-cost-model=dynamic)
else ifeq ($(MODE),debug)
  B   := build/debug
  OPT := -O0 -g3
else ifeq ($(MODE),asan)
  B   := build/asan
  # GCC 12 warns falsely inside libstdc++'s std::regex (used by Catch2) under -fsanitize.
  OPT := -O1 -g -march=native -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all \
         $(if $(IS_CLANG),,-Wno-maybe-uninitialized)
else ifeq ($(MODE),fuzz)
  # libFuzzer's coverage on the library; the harnesses add -fsanitize=fuzzer when linked.
  B   := build/fuzz
  OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
else
  $(error MODE must be release, debug, asan or fuzz, not '$(MODE)')
endif

# The phase programs, their sections and the tools are narrative: they call the library's
# kernels and print, record and draw what comes back. At -O2 GCC spends half of a phase
# program's compile time optimising code that runs once, so in a release build they get -Og,
# which runs fewer of GCC's passes: touching phase 4 then rebuilt it in 3.9 s, against 4.9 s at
# -O1 -fexpensive-optimizations, and `make all` ran its phases no slower (bench/build_time.sh;
# docs/performance.md, "Build time"). The library's narrative folders get -Og too (LIB_NARRATIVE).
# -Og never contracts a * b + c into one fused multiply-add, as -O1 -fexpensive-optimizations
# and -O2 do, so a recorded number that would depend on it says std::fma itself (phase 4's
# unigram entropy, plots' fit_power_law); make check-metrics then finds every number the
# phases record unchanged. The library's kernels, the benchmarks and the tests stay at $(OPT).
# (clang: -O1, as before; it contracts within an expression at any -O.)
NARRATIVE_OPT := $(if $(filter release,$(MODE)),$(if $(IS_CLANG),-O1,-Og) -march=native,$(OPT))

ifeq ($(IS_CLANG)$(filter fuzz,$(MODE)),1)
  B := $(B)/clang
endif

ifeq ($(BLAS),openblas)
  B      := $(B)/openblas
  BLASDEF := -DATTNLAB_OPENBLAS
  LDLIBS += -lopenblas
else ifneq ($(BLAS),)
  $(error BLAS must be empty or openblas, not '$(BLAS)')
endif

# No -ffast-math: it reorders reductions and breaks the -inf masking rule.
# -fvect-cost-model=dynamic: at -O2, GCC 12 vectorises only loops that need no runtime
# alias check, which leaves out most elementwise kernels. Vectorising them changes no
# result (GCC never reorders a floating-point reduction without -ffast-math): a model
# trained with and without it is byte-identical, and W1-W6 run 9-15% faster.
CXXFLAGS ?= $(OPT) -std=c++20 -Wall -Wextra -Wshadow -pthread
CPPFLAGS += -I. -MMD -MP $(BLASDEF) -DATTNLAB_SOURCE_DIR='"$(CURDIR)"'
LDFLAGS  += -pthread $(filter -fsanitize=%,$(OPT))

LIB_DIRS  := tensor io autograd nn plots data training experiments analyses app
LIB_NARRATIVE_DIRS := training experiments analyses app data plots  # built at -Og, but for plots/' pixel loops: see LIB_NARRATIVE
LIB_SRCS  := $(wildcard $(LIB_DIRS:%=%/*.cpp))
PROG_SRCS := $(wildcard phases/*.cpp bench/*.cpp tools/*.cpp)
PHASE_LIB_SRCS := $(wildcard phases/sections/*.cpp)
TEST_SRCS := $(filter-out tests/fuzz/%,$(wildcard tests/*/*.cpp))  # fuzz harnesses: make fuzz

# The library in batches, not one object per file: $(B)/obj/batches/nn_2.cpp is generated and
# #includes the second run of UNITY_BATCH files of nn/ (in name order). Every library file
# parses the same headers (40,000 lines of the standard library before its own first line)
# and compiles the same inline functions again, so batching pays: a clean make -j2 build took
# 1.6x as long one object per file as four to an object, and four 1.26x as long as eight
# (bench/build_time.sh, docs/performance.md). An edit to one file recompiles its batch: after touching
# nn/attention.cpp, 8-9 s at four, 11-13 s at eight. UNITY_BATCH=1 gives one object per file.
UNITY_BATCH ?= 8
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
# plots/' pixel loops are batched apart from its charts, as "pixels" (see LIB_NARRATIVE below).
PIXEL_SRCS := $(addprefix plots/,canvas.cpp checksum.cpp deflate.cpp lzw.cpp png.cpp quantize.cpp)
LIB_BATCH_LIST := $(foreach d,$(LIB_DIRS),$(call batches,$(d),$(filter-out $(PIXEL_SRCS),$(sort $(wildcard $(d)/*.cpp))),)) \
                  $(call batches,pixels,$(PIXEL_SRCS),)
LIB_BATCHES    := $(foreach b,$(LIB_BATCH_LIST),$(firstword $(subst :, ,$(b))))
batch_files     = $(subst $(comma), ,$(word 2,$(subst :, ,$(filter $(1):%,$(LIB_BATCH_LIST)))))
LIB_OBJS  := $(LIB_BATCHES:%=$(B)/obj/batches/%.o)
TEST_OBJS := $(TEST_SRCS:%.cpp=$(B)/obj/%.o)
PROGS     := $(addprefix $(B)/,$(basename $(notdir $(PROG_SRCS))))
LIB       := $(B)/libattnlab.a
# One object per phase, not per file: $(B)/obj/phases/sections/phase4.cpp is generated and
# #includes phases/sections/phase4_*.cpp (see the rule below). Each body file parses
# phase_common.hpp's 89,000 preprocessed lines; 14 objects took 54 CPU s, one per phase 24.
SECTION_GROUPS := $(sort $(foreach f,$(PHASE_LIB_SRCS),$(firstword $(subst _, ,$(basename $(notdir $(f)))))))
PHASE_LIB_OBJS := $(SECTION_GROUPS:%=$(B)/obj/phases/sections/%.o)
PHASE_LIB := $(B)/libphases.a
TESTS     := $(B)/attnlab_tests
CATCH_MAIN := $(B)/obj/tests/catch_main.o
CATCH_HDR  := /usr/include/catch2/catch.hpp

PHASE_PROGS := $(basename $(notdir $(wildcard phases/phase*.cpp)))
PHASES      := $(foreach p,$(PHASE_PROGS),$(firstword $(subst _, ,$(p))))

.PHONY: all build programs shakespeare test debug asan fuzz fuzz-build fuzz-replay bench bench-compare plots-demo train gallery test-browser \
        readme-figures help clean metrics-reference check-metrics
.DEFAULT_GOAL := all

# Parallel by default: compiling, training the three checkpoints, and running the phase
# programs, as many at a time as there are cores (`all` below). Each phase then runs its kernels
# on one thread (ATTNLAB_NUM_THREADS=1 unless set), as does training: two phases with two threads each would
# oversubscribe the cores, and every op that waits for a descheduled worker would stall —
# phase 4's KV-cache speed-up fell from 12x to 1.8x that way. Results are the same bits at
# any thread count (tests/phases/metrics_reference.json passes at 1 and 2).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# ...unless the caller chose with -j: then the jobserver is already there to share.
PARALLEL = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(JOBS))

## all         build, then run every phase program and demo, writing out/ and out/index.html (the main job)
# One make over the whole job, so the two cores never wait on a stage: a program runs as soon
# as it and the models it reads exist, while the rest still compiles or trains. Phase 5 reads
# no checkpoint and is the longest run (half of the phases' time), so it comes first and starts
# as soon as its program links; training needs only build/tinygpt; phases 1-4 wait for their
# models (PHASE_MODELS below). Then phase 4, the next longest, and the short ones.
# --output-sync prints each target's printout whole when it ends, so two never interleave
# (each writes only its own out/phaseN/ and out/data/ files, or its checkpoint).
# It builds only what it runs, and what README's "Try your own" runs (build/seq2seq);
# `make build` builds the benchmarks and the other tools too.
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

## asan        build and run the test suite under AddressSanitizer + UndefinedBehaviorSanitizer
asan:
	@$(MAKE) --no-print-directory MODE=asan test

## fuzz        run every libFuzzer harness in tests/fuzz/ for FUZZ_SECONDS each (default 60), after
##             replaying tests/fuzz/regressions/; needs clang (Debian: clang libclang-rt-14-dev)
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(basename $(notdir $(wildcard tests/fuzz/fuzz_*.cpp)))
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
define phase_rule
$(1): $(B)/$(2) $(foreach m,$(PHASE_MODELS_$(1)),out/checkpoints/$(m)_model.safetensors)
	$(B)/$(2)
endef
$(foreach p,$(PHASE_PROGS),$(eval $(call phase_rule,$(firstword $(subst _, ,$(p))),$(p))))

## help        list the targets
help:
	@echo "attnlab make targets (BLAS=openblas before any of them routes matmul to OpenBLAS):"
	@sed -n 's/^## /  make /p' $(MAKEFILE_LIST)

## clean       remove build/ and out/
clean:
	rm -rf build out

# ---- rules -------------------------------------------------------------------

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

# Static pattern rules: each applies only to its own programs. A bare `$(B)/%:` rule
# matches every file under build/, and make tried it (chained with `$(B)/obj/%.o: %.cpp`)
# on every included .d file — minutes of rule search on every invocation.
programs_in = $(addprefix $(B)/,$(basename $(notdir $(wildcard $(1)/*.cpp))))
$(call programs_in,phases): $(B)/%: $(B)/obj/phases/%.o $(PHASE_LIB) $(LIB)
	$(CXX) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(call programs_in,bench): $(B)/%: $(B)/obj/bench/%.o $(LIB)
	$(CXX) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(call programs_in,tools): $(B)/%: $(B)/obj/tools/%.o $(LIB)
	$(CXX) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The command-line tests (tests/tools/) run the programs of the same configuration.
$(TESTS): $(CATCH_MAIN) $(TEST_OBJS) $(PHASE_LIB) $(LIB) | $(PROGS)
	$(CXX) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(TEST_OBJS): CPPFLAGS += -DATTNLAB_BUILD_DIR='"$(CURDIR)/$(B)"'

# Objects depend on the flags that made them: $(B)/flags holds the compile command,
# rewritten (so newer than every object) only when it changes, e.g. a new OPT or CXXFLAGS.
FLAGS_FILE := $(B)/flags
FLAGS_NOW  := $(CXX) $(CPPFLAGS) $(CXXFLAGS) narrative: $(NARRATIVE_OPT) $(LIB_NARRATIVE_DIRS)
ifneq ($(FLAGS_NOW),$(file < $(FLAGS_FILE)))
  $(shell mkdir -p $(B))
  $(file > $(FLAGS_FILE),$(FLAGS_NOW))
endif
# ...and again if it is missing when a rule needs it (after `make clean` in the same make).
$(FLAGS_FILE):
	$(shell mkdir -p $(@D))$(file > $@,$(FLAGS_NOW))

# Which objects are narrative (see NARRATIVE_OPT). `private`: a target-specific variable would
# otherwise pass to the target's prerequisites, here the precompiled headers below.
NARRATIVE_OBJS := $(PHASE_PROGS:%=$(B)/obj/phases/%.o) $(PHASE_LIB_OBJS) \
                  $(patsubst %.cpp,$(B)/obj/%.o,$(wildcard tools/*.cpp))
$(NARRATIVE_OBJS): private OPT := $(NARRATIVE_OPT)

# The library's narrative folders get $(NARRATIVE_OPT) too: training/, experiments/,
# analyses/ and app/ (the experiments and training
# loops, which spend their time in tensor/ and nn/'s kernels), data/ (the toy corpora) and plots/'
# charts (layout: where an axis, a label, a bar goes). At -O2 they took 29.7 of a clean build's
# 97 compiler seconds, now 18.6 (bench/object_times.sh): make -j2 build 47.3 -> 43.1 s, make all
# 70.4 -> 64.5 s (bench/build_time.sh, docs/performance.md "Build time"), for a run of the phases 1.02x as
# long (bench/phase_times.sh). Not plots/' pixel loops (PIXEL_SRCS, batched apart as "pixels"):
# every figure's pixels go through their fill and encoders, and with them at -Og too
# (make PIXEL_SRCS=) build/plots_demo took 1.83x as long, the phases 1.06x.
LIB_NARRATIVE := $(filter $(LIB_NARRATIVE_DIRS:%=$(B)/obj/batches/%_%),$(LIB_OBJS))
$(LIB_NARRATIVE): private OPT := $(NARRATIVE_OPT)

# A precompiled phases/phase_common.hpp for the narrative objects (GCC): each parses its
# 90,000 preprocessed lines before its own first line, 1.2 of phase 1's 5.5 s. `-include
# $(B)/pch/narrative.hpp` finds $(B)/pch/narrative.hpp.gch beside it, made with the same flags
# (-Winvalid-pch says so if it cannot use it). The prefix puts phase_common.hpp in front of
# every such file, so one that misses that #include still compiles here; clang builds use no
# prefix and catch it (make CXX=clang++, run by .ci/run). PCH=0 compiles without it.
# Not for the library or the tests: tried, and a clean build was no faster (reading a
# 65-90 MB .gch per file costs what parsing saved), and GCC 12 then reports -Warray-bounds
# inside the standard headers it would otherwise keep quiet about.
PCH ?= 1
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

# The generated files that #include a run of others: a library batch (see UNITY_BATCH) and a
# phase's section bodies (group "phase4": phases/sections/phase4_*.cpp). Each is written while
# make reads this Makefile, and only when its list of files changes, so its object recompiles
# only then or when a file it includes changes (the .d file lists them). As rules depending on
# every source they ran after any edit, on every make: 0.5 s of shells before each build.
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

# Catch2 v2 is the one thing the test suite needs beyond the compiler.
$(CATCH_HDR):
	@if [ "$$(id -u)" = 0 ]; then \
	  echo "Catch2 is missing: installing Debian's catch2"; \
	  apt-get install -y catch2 || { apt-get update && apt-get install -y catch2; }; \
	else \
	  echo "Catch2 (catch2/catch.hpp) is missing. Install it with:  sudo apt-get install -y catch2"; exit 1; \
	fi

.SECONDARY:
-include $(B)/pch/narrative.hpp.d $(LIB_OBJS:.o=.d) $(PHASE_LIB_OBJS:.o=.d) $(TEST_OBJS:.o=.d) $(FUZZ_TARGETS:%=$(B)/obj/tests/fuzz/%.d) $(CATCH_MAIN:.o=.d) $(PROG_SRCS:%.cpp=$(B)/obj/%.d)
