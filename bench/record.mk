# bench/record.mk - issue 18: the cost of a recorded event against rdtsc,
# LTTng-UST and TRACE's text path (`make bench-record`; root installs
# liblttng-ust-dev and lttng-tools). Results: bench/RESULTS.md, "Recording".
#
# `make bench-record-real`: `edgeprobe record` of every function against
# `uftrace record` on bzip2, lua, zstd and redis-server built from their
# Debian sources with -fpatchable-function-entry=5, redis driven by
# redis-benchmark (bench/real/record_vs_uftrace.sh; knobs RR_* there; about
# 10 minutes on 2 CPUs). Root installs uftrace, dpkg-dev and time; otherwise
# it names them. Results: bench/out/record-real/summary.md, and
# bench/RESULTS.md, "Recording real programs against uftrace".
RECORD_DIR := bench/record
RECORD_OUT := bench/out/record
RECORD_CFLAGS := -O2 -Wall -Wextra -Iinclude -I$(RECORD_DIR) -pthread
RECORD_PKGS := liblttng-ust-dev lttng-tools

RECORD_REAL_PKGS := uftrace dpkg-dev time

.PHONY: bench-record record-deps bench-record-real record-real-deps
bench-record-real: record-real-deps
	$(MAKE) --no-print-directory tools
	bench/real/record_vs_uftrace.sh
record-real-deps:
	@missing=""; for c in uftrace:uftrace dpkg-source:dpkg-dev /usr/bin/time:time; do \
		command -v $${c%%:*} >/dev/null || missing="$$missing $${c#*:}"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then apt-get install -y$$missing >/dev/null; \
		else echo "bench-record-real: needs the packages$$missing (apt-get install$$missing as root)" >&2; exit 1; fi; fi
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
