# bench/markers.mk - issue 9 benchmarks: argument probes, handler dispatch,
# start-up, LTTng-UST as a peer. `make bench-markers` (root installs the
# packages: systemtap-sdt-dev, liblttng-ust-dev, lttng-tools, hyperfine).
# Builds under bench/out/markers/, runs bench/markers/run.sh, which prints
# the figures recorded in bench/RESULTS.md ("Issue 9").
MARKERS_DIR  := bench/markers
MARKERS_OUT  := bench/out/markers
MARKERS_GCC  ?= gcc
MARKERS_SITES ?= 4096
MARKERS_CFLAGS := -O2 -Iinclude -I$(MARKERS_DIR) -pthread -DPEERS_SITES=$(MARKERS_SITES)
MARKERS_LIBS := -llttng-ust -ldl
MARKERS_PKGS := systemtap-sdt-dev liblttng-ust-dev lttng-tools hyperfine
MARKERS_KIND_mn := none
MARKERS_KIND_mus := usdt
MARKERS_KIND_mp5 := ep_probe
MARKERS_KIND_mp8 := ep_probe
MARKERS_KIND_mt5 := ep_trace
MARKERS_KIND_mlt := lttng
MARKERS_KIND_mn5 := nop5
MARKERS_KIND_mtl := ep_trace_lazy
MARKERS_KIND_cn := none
MARKERS_KIND_cp5 := ep_probe
MARKERS_KIND_ct5 := ep_trace
MARKERS_KIND_ctl := ep_trace_lazy
MARKERS_FLAGS_mp8 := -DEDGEPROBE_SITE_BYTES=8
MARKERS_CC_cn := clang
MARKERS_CC_cp5 := clang
MARKERS_CC_ct5 := clang
MARKERS_CC_ctl := clang
MARKERS_KIND_dn := none_mid
MARKERS_KIND_dn5 := nop5_mid
MARKERS_KIND_dus := usdt_mid
MARKERS_KIND_dt5 := ep_trace_mid
MARKERS_KIND_dtl := ep_trace_lazy_mid
MARKERS_TAGS := mn mn5 mus mp5 mp8 mt5 mtl mlt cn cp5 ct5 ctl dn dn5 dus dt5 dtl
MARKERS_SITES_O := $(MARKERS_TAGS:%=$(MARKERS_OUT)/sites_%.o)

.PHONY: bench-markers markers-deps markers-build
bench-markers: markers-deps
	$(MAKE) --no-print-directory -f bench/markers.mk markers-build
	$(MAKE) --no-print-directory -f bench/peers.mk bench/out/peers/bin/usdt_uprobe bench/out/peers/bin/startup_ep bench/out/peers/bin/startup_none
	bash $(MARKERS_DIR)/run.sh

markers-build: $(MARKERS_OUT)/many $(MARKERS_OUT)/invoke

markers-deps:
	@missing=""; for p in $(MARKERS_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing || \
	        { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; } || exit 1; \
	    else echo "bench-markers: install as root: apt-get install -y$$missing"; exit 1; fi; \
	fi

$(MARKERS_OUT):
	mkdir -p $@
$(MARKERS_OUT)/sites_%.c: bench/peers/gen_sites.py | $(MARKERS_OUT)
	python3 bench/peers/gen_sites.py $(MARKERS_KIND_$*) $* $(MARKERS_SITES) $@
$(MARKERS_SITES_O): $(MARKERS_OUT)/sites_%.o: $(MARKERS_OUT)/sites_%.c include/edgeprobe.h $(MARKERS_DIR)/lttng_tp.h
	$(or $(MARKERS_CC_$*),$(MARKERS_GCC)) $(MARKERS_CFLAGS) $(MARKERS_FLAGS_$*) -c $< -o $@
$(MARKERS_OUT)/lttng_tp.o: $(MARKERS_DIR)/lttng_tp.c $(MARKERS_DIR)/lttng_tp.h | $(MARKERS_OUT)
	$(MARKERS_GCC) $(MARKERS_CFLAGS) -c $< -o $@
$(MARKERS_OUT)/%.o: $(MARKERS_DIR)/%.c bench/peers/peers.h include/edgeprobe.h | $(MARKERS_OUT)
	$(MARKERS_GCC) $(MARKERS_CFLAGS) -Wall -Wextra -c $< -o $@
$(MARKERS_OUT)/many: $(MARKERS_OUT)/many.o $(MARKERS_SITES_O) $(MARKERS_OUT)/lttng_tp.o
	$(MARKERS_GCC) -pthread $^ $(MARKERS_LIBS) -o $@
$(MARKERS_OUT)/invoke: $(MARKERS_OUT)/invoke.o $(MARKERS_OUT)/invoke_inline.o $(MARKERS_OUT)/lttng_tp.o
	$(MARKERS_GCC) -pthread $^ $(MARKERS_LIBS) -o $@
