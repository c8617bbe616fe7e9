# bench/patchbench.mk - patching benchmarks; included by the top Makefile.
#
#   make calibrate       Tmax stress test (paper section 8.1, Figure 9): a
#                        straddling call toggled under executors, swept over
#                        the wait; prints EDGEPROBE_TMAX=<ticks>. About 3-4
#                        minutes with the defaults below.
#   make bench-patch     activation/deactivation latency of edgeprobe_patch,
#                        _patch_start/_finish, _patch_batch, the call patch and
#                        the serialising mode (paper section 8.3, Table 2),
#                        idle and with a busy sibling thread. About 10 s.
#   make bench-patch-callgrind   instruction counts per edgeprobe function
#                        (valgrind), to see where a toggle's time goes.
#
# Outputs: bench/out/patch/ (calibrate.txt, calibrate.csv, tmax.env,
# latency.txt, latency.csv, latency.md, histograms.txt, samples/) and the SVGs
# bench/plots/calibrate_tmax.svg, bench/plots/patch_latency_{idle,busy}.svg.
#
# Knobs (make variables or environment), e.g.
#   PB_CAL_SECS=5 PB_CAL_REPS=5 make calibrate        # longer, surer sweep
#   PB_CAL_WMAX=1000 PB_CAL_WSTEP=50 make calibrate   # finer, shorter range
#   PB_LAT_N=50000 make bench-patch
PB_CC ?= gcc
PB_CFLAGS ?= -O2 -Wall -Wextra -Iinclude -pthread
PB_BUILD ?= build
PB_OUT ?= bench/out/patch
PB_PLOTS ?= bench/plots
PB_PYTHON ?= python3

# calibrate: per-case time (s), runs per (wait, split), wait sweep (TSC
# ticks), safety margin and floor of the recommendation, executor threads
# (0 = all cores but one), runs of each deliberately broken protocol.
PB_CAL_SECS ?= 0.75
PB_CAL_REPS ?= 2
PB_CAL_WMIN ?= 0
PB_CAL_WMAX ?= 3000
PB_CAL_WSTEP ?= 100
PB_CAL_TOGGLES ?= 0
PB_CAL_MARGIN ?= 3
PB_CAL_FLOOR ?= 3000
PB_CAL_EXECUTORS ?= 0
PB_CAL_BROKEN_REPS ?= 3
PB_CAL_ARGS ?=

# bench-patch: toggles per direction per case, batch size and count, Tmax
# (-1 = edgeprobe's own: EDGEPROBE_TMAX or 3000).
PB_LAT_N ?= 10000
PB_LAT_BATCH_N ?= 1000
PB_LAT_BATCH_REPS ?= 200
PB_LAT_TMAX ?= -1
PB_LAT_ARGS ?=

PB_HDR := include/edgeprobe.h

.PHONY: calibrate bench-patch bench-patch-callgrind pb-plots

$(PB_BUILD)/calibrate: bench/calibrate.c $(PB_HDR)
	@mkdir -p $(PB_BUILD)
	$(PB_CC) $(PB_CFLAGS) $< -o $@

$(PB_BUILD)/patch_latency: bench/patch_latency.c $(PB_HDR)
	@mkdir -p $(PB_BUILD)
	$(PB_CC) $(PB_CFLAGS) $< -o $@

$(PB_BUILD)/patch_latency_cg: bench/patch_latency.c $(PB_HDR)
	@mkdir -p $(PB_BUILD)
	$(PB_CC) $(PB_CFLAGS) -g -DPB_NO_RDTSCP $< -o $@

calibrate: $(PB_BUILD)/calibrate
	@mkdir -p $(PB_OUT)
	./$(PB_BUILD)/calibrate --secs $(PB_CAL_SECS) --reps $(PB_CAL_REPS) \
	  --wmin $(PB_CAL_WMIN) --wmax $(PB_CAL_WMAX) --wstep $(PB_CAL_WSTEP) \
	  --toggles $(PB_CAL_TOGGLES) --margin $(PB_CAL_MARGIN) --floor $(PB_CAL_FLOOR) \
	  --executors $(PB_CAL_EXECUTORS) --broken-reps $(PB_CAL_BROKEN_REPS) \
	  --outdir $(PB_OUT) $(PB_CAL_ARGS) | tee $(PB_OUT)/calibrate.txt
	-@$(PB_PYTHON) bench/plot_patch.py --out $(PB_OUT) --plots $(PB_PLOTS)
	@echo "calibrate: recommendation in $(PB_OUT)/tmax.env (export it, or build with -DEDGEPROBE_TMAX_DEFAULT=...)"

bench-patch: $(PB_BUILD)/patch_latency
	@mkdir -p $(PB_OUT)
	rm -rf $(PB_OUT)/samples
	./$(PB_BUILD)/patch_latency --n $(PB_LAT_N) --batch-n $(PB_LAT_BATCH_N) \
	  --batch-reps $(PB_LAT_BATCH_REPS) --tmax $(PB_LAT_TMAX) --outdir $(PB_OUT) $(PB_LAT_ARGS) \
	  | tee $(PB_OUT)/latency.txt
	-@$(PB_PYTHON) bench/plot_patch.py --out $(PB_OUT) --plots $(PB_PLOTS)

pb-plots:
	$(PB_PYTHON) bench/plot_patch.py --out $(PB_OUT) --plots $(PB_PLOTS)

# Instruction counts (Tmax 0 so the waits do not count; idle only).
bench-patch-callgrind: $(PB_BUILD)/patch_latency_cg
	@command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)"; exit 1; }
	@mkdir -p $(PB_OUT)/cg
	valgrind --tool=callgrind --callgrind-out-file=$(PB_OUT)/cg/callgrind.out \
	  ./$(PB_BUILD)/patch_latency_cg --n 2000 --batch-reps 20 --idle-only --tmax 0 --outdir $(PB_OUT)/cg \
	  > $(PB_OUT)/cg/run.txt 2>&1
	callgrind_annotate --inclusive=yes --auto=no $(PB_OUT)/cg/callgrind.out | grep -E '^ *[0-9,]+ .*(edgeprobe\.h:|PROGRAM)' | head -40
