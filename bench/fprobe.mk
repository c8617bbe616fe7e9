# bench/fprobe.mk - function probes on -fpatchable-function-entry=5 (issue 8).
#   make bench-fprobe   enabled entry/exit cost vs the plain call (gcc's
#                       mirror form, clang's NOP5 form), toggle by id, and
#                       start-up cost and memory per probe for 20,000
#                       functions; results in bench/out/fprobe/
FPROBE_OUT := bench/out/fprobe
FPROBE_N ?= 20000
FPROBE_CFLAGS := -O2 -Wall -Iinclude -pthread -fpatchable-function-entry=5

$(FPROBE_OUT)/cost-gcc: bench/fprobe/cost.c bench/fprobe/ticks.h include/edgeprobe.h
	mkdir -p $(FPROBE_OUT)
	gcc $(FPROBE_CFLAGS) $< -o $@
$(FPROBE_OUT)/cost-clang: bench/fprobe/cost.c bench/fprobe/ticks.h include/edgeprobe.h
	mkdir -p $(FPROBE_OUT)
	clang $(FPROBE_CFLAGS) $< -o $@
$(FPROBE_OUT)/many.c: bench/fprobe/gen_many.py
	mkdir -p $(FPROBE_OUT)
	python3 $< $(FPROBE_N) > $@
$(FPROBE_OUT)/init: bench/fprobe/init.c $(FPROBE_OUT)/many.c include/edgeprobe.h
	gcc $(FPROBE_CFLAGS) bench/fprobe/init.c $(FPROBE_OUT)/many.c -o $@
	strip -o $@-stripped $@

# make bench-upper-state: SSE code around a probed call, and the probe's
# cost, with this header and an older one (bench/fprobe/upper_state.sh)
.PHONY: bench-fprobe bench-upper-state
bench-upper-state:
	bench/fprobe/upper_state.sh
bench-fprobe: $(FPROBE_OUT)/cost-gcc $(FPROBE_OUT)/cost-clang $(FPROBE_OUT)/init
	@lscpu | grep 'Model name'; uptime
	@for i in 1 2 3; do for cc in gcc clang; do \
		taskset -c 1 ./$(FPROBE_OUT)/cost-$$cc; echo; done; done | tee $(FPROBE_OUT)/cost.md
	@for i in 1 2 3; do ./$(FPROBE_OUT)/init; done | tee $(FPROBE_OUT)/init.txt
	@./$(FPROBE_OUT)/init-stripped 2>&1 | tee -a $(FPROBE_OUT)/init.txt
