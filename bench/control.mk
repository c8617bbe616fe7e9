# bench/control.mk - issue 10: hit counting cost, enable-to-first-hit
# latency, `edgeprobe trace` throughput. `make bench-control` prints
# markdown tables (recorded in bench/RESULTS.md).
CONTROL_OUT := bench/out/control
CONTROL_CFLAGS := -O2 -Wall -Wextra -Iinclude -pthread

$(CONTROL_OUT)/control: bench/control.c bench/control_hits.c include/edgeprobe.h | $(CONTROL_OUT)
	$(CC) $(CONTROL_CFLAGS) -DHITS_VARIANT=counted -c bench/control_hits.c -o $(CONTROL_OUT)/hits_counted.o
	$(CC) $(CONTROL_CFLAGS) -DHITS_VARIANT=uncounted -DHITS_NAIVE -DEDGEPROBE_HIT_COUNTS=0 -c bench/control_hits.c -o $(CONTROL_OUT)/hits_uncounted.o
	$(CC) $(CONTROL_CFLAGS) bench/control.c $(CONTROL_OUT)/hits_counted.o $(CONTROL_OUT)/hits_uncounted.o -o $@
$(CONTROL_OUT):
	mkdir -p $@

# disabled cost of many probed functions, with and without hit counting
CONTROL_SITES := none:none: b0:branch:-DEDGEPROBE_HIT_COUNTS=0 b1:branch: t0:trace:-DEDGEPROBE_HIT_COUNTS=0 t1:trace:
$(CONTROL_OUT)/sites: bench/control_sites/gen.py bench/control_sites/main.c include/edgeprobe.h | $(CONTROL_OUT)
	for v in $(CONTROL_SITES); do tag=$${v%%:*}; rest=$${v#*:}; kind=$${rest%%:*}; flags=$${rest#*:}; \
	    python3 bench/control_sites/gen.py $$tag $$kind 4096 > $(CONTROL_OUT)/sites_$$tag.c && \
	    $(CC) -O2 -Iinclude $$flags -c $(CONTROL_OUT)/sites_$$tag.c -o $(CONTROL_OUT)/sites_$$tag.o || exit 1; done
	$(CC) -O2 bench/control_sites/main.c $(addprefix $(CONTROL_OUT)/sites_,$(addsuffix .o,none b0 b1 t0 t1)) -pthread -o $@

.PHONY: bench-control
bench-control: $(CONTROL_OUT)/control $(CONTROL_OUT)/sites tools
	@lscpu | grep 'Model name' ; uname -r ; nproc
	./$(CONTROL_OUT)/control ./$(BUILD)/edgeprobe all | tee $(CONTROL_OUT)/results.md
	@echo "Disabled cost of 4,096 probed functions (bench/control_sites):" | tee -a $(CONTROL_OUT)/results.md
	./$(CONTROL_OUT)/sites | tee -a $(CONTROL_OUT)/results.md
	@echo "LTTng, the same measurement (bench/control_lttng.sh):"
	bash bench/control_lttng.sh | tee -a $(CONTROL_OUT)/results.md
