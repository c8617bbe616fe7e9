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

.PHONY: bench-control
bench-control: $(CONTROL_OUT)/control tools
	@lscpu | grep 'Model name' ; uname -r ; nproc
	./$(CONTROL_OUT)/control ./$(BUILD)/edgeprobe all | tee $(CONTROL_OUT)/results.md
	@echo "LTTng, the same measurement (bench/control_lttng.sh):"
	bash bench/control_lttng.sh | tee -a $(CONTROL_OUT)/results.md
