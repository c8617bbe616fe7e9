# bench/record.mk - issue 18: the cost of a recorded event against rdtsc,
# LTTng-UST and TRACE's text path (`make bench-record`; root installs
# liblttng-ust-dev and lttng-tools). Results: bench/RESULTS.md, "Recording".
RECORD_DIR := bench/record
RECORD_OUT := bench/out/record
RECORD_CFLAGS := -O2 -Wall -Wextra -Iinclude -I$(RECORD_DIR) -pthread
RECORD_PKGS := liblttng-ust-dev lttng-tools

.PHONY: bench-record record-deps
bench-record: record-deps $(RECORD_OUT)/record_cost $(RECORD_OUT)/throughput
	@if [ -f /usr/include/x86_64-linux-gnu/lttng/tracepoint.h ]; then $(MAKE) --no-print-directory -f bench/record.mk $(RECORD_OUT)/record_cost_lttng; fi
	$(RECORD_DIR)/run.sh
record-deps:
	@if [ "$$(id -u)" = 0 ] && ! [ -f /usr/include/x86_64-linux-gnu/lttng/tracepoint.h ]; then apt-get install -y $(RECORD_PKGS) >/dev/null || true; fi
$(RECORD_OUT):
	mkdir -p $@
$(RECORD_OUT)/record_cost: $(RECORD_DIR)/record_cost.c include/edgeprobe.h | $(RECORD_OUT)
	$(CC) $(RECORD_CFLAGS) $< -o $@
$(RECORD_OUT)/record_cost_lttng: $(RECORD_DIR)/record_cost.c $(RECORD_DIR)/lttng_tp.c $(RECORD_DIR)/lttng_tp.h include/edgeprobe.h | $(RECORD_OUT)
	$(CC) $(RECORD_CFLAGS) -DRECORD_LTTNG $(RECORD_DIR)/record_cost.c $(RECORD_DIR)/lttng_tp.c -o $@ -llttng-ust -ldl
$(RECORD_OUT)/throughput: $(RECORD_DIR)/throughput.c include/edgeprobe.h | $(RECORD_OUT)
	$(CC) $(RECORD_CFLAGS) $< -o $@
