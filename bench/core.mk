# bench/core.mk - issue 2's costs: toggle by handle, enable by name/glob among
# 10,000 probes. `make bench-core` prints a markdown table.
CORE_OUT := bench/out/core
CORE_CFLAGS := -O2 -Wall -Wextra -Iinclude -pthread

$(CORE_OUT)/probes.c: bench/gen_core.py
	mkdir -p $(CORE_OUT)
	python3 bench/gen_core.py 10000 > $@
$(CORE_OUT)/core: bench/core.c $(CORE_OUT)/probes.c include/edgeprobe.h
	$(CC) $(CORE_CFLAGS) bench/core.c $(CORE_OUT)/probes.c -o $@

.PHONY: bench-core
bench-core: $(CORE_OUT)/core
	@lscpu | grep 'Model name' ; uname -r
	taskset -c 0 ./$(CORE_OUT)/core | tee $(CORE_OUT)/results.md
