# bench/real.mk - profilers on real programs (issues 4 and 8). Included by
# the top Makefile; also usable alone: make -f bench/real.mk bench-real
#
#   bench-real          fetch bzip2, lua5.4 and zstd (libzstd) sources
#                       (apt-get source), build them plain, with
#                       -fpatchable-function-entry=5 and -finstrument-functions
#                       (gcc and clang), time them interleaved with hyperfine
#                       plain, under `build/edgeprobe prof` (built by `make
#                       tools`; skipped with a message when absent), under
#                       uftrace and the linked profiler; measure provider-probe
#                       initialisation; results in bench/out/real/summary.md,
#                       charts in bench/plots/. About 15 minutes on 2 idle
#                       CPUs. Knobs: see bench/real/run.sh.
#   real-build          only fetch and build
#   real-provider-init  only the per-probe initialisation cost and memory
#   real-demo           build and run the profiler demo (examples/prof_demo.c)
#   real-selftest       check the profiler's samples on known durations
#   real-clean          remove build/real and bench/out/real
REAL_CC ?= gcc
REAL_VARIANTS ?= plain fpe stub instr cplain cfpe
REAL_OUT := bench/out/real
REAL_BUILD := build/real
REAL_PROF := tools/prof_agent.c
REAL_INIT_N ?= 2000

.PHONY: bench-real real-build real-provider-init real-demo real-selftest real-clean

# the profiler's self-test (tests/prof/selftest.c) is run and its verdict kept with the
# results, but a failure there does not stop the measurements
bench-real: real-build real-provider-init $(REAL_BUILD)/selftest
	@mkdir -p $(REAL_OUT)
	$(MAKE) --no-print-directory real-selftest > $(REAL_OUT)/selftest.txt 2>&1 \
		&& echo "bench-real: real-selftest passed" \
		|| echo "bench-real: real-selftest FAILED: $$(tail -3 $(REAL_OUT)/selftest.txt | tr '\n' ' ')"
	$(MAKE) --no-print-directory tools || echo "bench-real: make tools failed; edgeprobe prof will be skipped"
	bench/real/run.sh

real-build:
	bench/real/fetch.sh
	REAL_CC=$(REAL_CC) bench/real/build.sh $(REAL_VARIANTS)

real-provider-init:
	REAL_CC=$(REAL_CC) REAL_INIT_N=$(REAL_INIT_N) bench/real/provider_init.sh

$(REAL_BUILD)/demo: examples/prof_demo.c $(REAL_PROF) tools/prof_common.h include/edgeprobe.h
	@mkdir -p $(REAL_BUILD)
	$(REAL_CC) -O2 -Wall -Iinclude -c $(REAL_PROF) -o $(REAL_BUILD)/demo-prof.o
	$(REAL_CC) -O2 -Wall -finstrument-functions -fno-optimize-sibling-calls -rdynamic -pthread \
		examples/prof_demo.c $(REAL_BUILD)/demo-prof.o -o $@

real-demo: $(REAL_BUILD)/demo
	@mkdir -p $(REAL_OUT)
	EDGEPROBE_PROF_SVG=$(REAL_OUT)/demo.svg $(REAL_BUILD)/demo

$(REAL_BUILD)/selftest: tests/prof/selftest.c $(REAL_PROF) tools/prof_common.h include/edgeprobe.h
	@mkdir -p $(REAL_BUILD)
	$(REAL_CC) -O2 -Wall -Iinclude -c $(REAL_PROF) -o $(REAL_BUILD)/selftest-prof.o
	$(REAL_CC) -O2 -Wall -finstrument-functions -fno-optimize-sibling-calls -rdynamic -pthread \
		tests/prof/selftest.c $(REAL_BUILD)/selftest-prof.o -o $@

real-selftest: $(REAL_BUILD)/selftest
	EDGEPROBE_PROF_MODE=none $(REAL_BUILD)/selftest
	EDGEPROBE_PROF_MODE=none EDGEPROBE_PROF_K=1 EDGEPROBE_PROF_EPOCH_MS=1 $(REAL_BUILD)/selftest

real-clean:
	rm -rf $(REAL_BUILD) $(REAL_OUT)
