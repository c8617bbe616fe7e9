# bench/peers.mk - peer-comparison benchmarks (issue 5).
#
# Included by the top Makefile, or run alone from the repository root:
#     make -f bench/peers.mk bench-peers
# `bench-peers` checks (and, as root, installs) the packages it needs, builds
# everything under bench/out/peers/ (in parallel, PEERS_JOBS), runs
# bench/run-peers.sh, and writes bench/RESULTS-peers.md and bench/plots/*.svg.
# Every name here starts with PEERS_ or peers- so that it cannot clash with
# the including Makefile.

PEERS_DIR     := bench/peers
PEERS_OUT     := bench/out/peers
PEERS_GEN     := $(PEERS_OUT)/gen
PEERS_OBJ     := $(PEERS_OUT)/obj
PEERS_BIN     := $(PEERS_OUT)/bin
PEERS_GCC     ?= gcc
PEERS_CLANG   ?= clang-14
PEERS_PY      ?= python3
PEERS_SITES   ?= 4096
PEERS_JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
PEERS_CFLAGS  := -O2 -Iinclude -I$(PEERS_DIR) -pthread -DPEERS_SITES=$(PEERS_SITES)
PEERS_XRAY    := -fxray-instrument -fxray-instruction-threshold=1
PEERS_LINK    := $(PEERS_CLANG) -fxray-instrument -pthread
# Debian/Ubuntu packages: hyperfine (start-up), sys/sdt.h (USDT), the XRay
# runtime for clang-14, and clang-14 itself.
PEERS_PKGS    := hyperfine systemtap-sdt-dev libclang-rt-14-dev clang-14

# ---- generated site TUs: tag -> kind (gen_sites.py), compiler, flags -------
PEERS_GCC_TAGS   := n fl flc us uss t5 b5 t8 b8 b5c bla blb
PEERS_CLANG_TAGS := nc cb5
PEERS_XRAY_TAGS  := xr
PEERS_KIND_n   := none
PEERS_KIND_fl  := flag
PEERS_KIND_flc := flag_cold
PEERS_KIND_us  := usdt
PEERS_KIND_uss := usdt_sem
PEERS_KIND_t5  := ep_trace
PEERS_KIND_b5  := ep_branch
PEERS_KIND_t8  := ep_trace
PEERS_KIND_b8  := ep_branch
PEERS_KIND_b5c := ep_branch_cold
PEERS_KIND_bla := blog
PEERS_KIND_blb := blog
PEERS_KIND_nc  := none
PEERS_KIND_cb5 := ep_branch
PEERS_KIND_xr  := xray
PEERS_FLAGS_t8 := -DEDGEPROBE_SITE_BYTES=8
PEERS_FLAGS_b8 := -DEDGEPROBE_SITE_BYTES=8

peers_sites_o = $(addprefix $(PEERS_OBJ)/sites_,$(addsuffix .o,$(1)))
PEERS_MANY_SITES   := $(call peers_sites_o,n fl flc us uss t5 b5 t8 b8 b5c nc xr cb5)
# link order keeps the TUs patched with different page policies apart
PEERS_TOGGLE_SITES := $(call peers_sites_o,t5 fl b5 bla t8 n b8 blb xr)

# ---- start-up workload: 20 TUs x 50 functions x 100 probes = 100,000 ------
PEERS_ST_NTU    ?= 20
PEERS_ST_NFN    ?= 50
PEERS_ST_NPROBE ?= 100
PEERS_ST_DIR    := $(PEERS_GEN)/startup
PEERS_ST_STAMP  := $(PEERS_ST_DIR)/.stamp
PEERS_ST_NAMES  := $(shell i=0; while [ $$i -lt $(PEERS_ST_NTU) ]; do printf 'st_%02d ' $$i; i=$$((i+1)); done) st_main
PEERS_ST_EP_O   := $(PEERS_ST_NAMES:%=$(PEERS_OBJ)/st_ep/%.o)
PEERS_ST_NONE_O := $(PEERS_ST_NAMES:%=$(PEERS_OBJ)/st_none/%.o)

PEERS_BINS := $(addprefix $(PEERS_BIN)/,many invoke toggle scale usdt_uprobe startup_ep startup_none)

.PHONY: bench-peers peers-build peers-deps peers-run peers-report peers-clean

bench-peers: peers-deps
	$(MAKE) --no-print-directory -f bench/peers.mk -j$(PEERS_JOBS) peers-build
	bench/run-peers.sh

peers-build: $(PEERS_BINS)

# Re-make the report and plots from the last run's results (no measuring).
peers-report:
	$(PEERS_PY) $(PEERS_DIR)/report.py $(PEERS_OUT)/results bench/RESULTS-peers.md
	$(PEERS_PY) $(PEERS_DIR)/plots.py $(PEERS_OUT)/results bench/plots

peers-clean:
	rm -rf $(PEERS_OUT)

# Install what is missing when root (apt-get), otherwise name it and stop.
peers-deps:
	@missing=""; \
	if command -v dpkg >/dev/null 2>&1; then \
	    for p in $(PEERS_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	else \
	    command -v hyperfine >/dev/null 2>&1 || missing="$$missing hyperfine"; \
	    command -v $(PEERS_CLANG) >/dev/null 2>&1 || missing="$$missing clang-14"; \
	    echo '#include <sys/sdt.h>' | $(PEERS_GCC) -E -x c - >/dev/null 2>&1 || missing="$$missing systemtap-sdt-dev"; \
	fi; \
	if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	        echo "bench-peers: installing:$$missing"; \
	        DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing || \
	        { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; } || exit 1; \
	    else \
	        echo "bench-peers: missing packages:$$missing"; \
	        echo "bench-peers: install them as root:  apt-get install -y$$missing"; \
	        echo "bench-peers: (hyperfine: start-up runs; systemtap-sdt-dev: <sys/sdt.h> for USDT;"; \
	        echo "bench-peers:  clang-14 + libclang-rt-14-dev: LLVM XRay and its runtime)"; \
	        exit 1; \
	    fi; \
	fi

$(PEERS_GEN) $(PEERS_OBJ) $(PEERS_BIN) $(PEERS_OBJ)/st_ep $(PEERS_OBJ)/st_none:
	mkdir -p $@

# ---- site TUs --------------------------------------------------------------
$(PEERS_GEN)/sites_%.c: $(PEERS_DIR)/gen_sites.py | $(PEERS_GEN)
	$(PEERS_PY) $(PEERS_DIR)/gen_sites.py $(PEERS_KIND_$*) $* $(PEERS_SITES) $@

$(call peers_sites_o,$(PEERS_GCC_TAGS)): $(PEERS_OBJ)/sites_%.o: $(PEERS_GEN)/sites_%.c include/edgeprobe.h | $(PEERS_OBJ)
	$(PEERS_GCC) $(PEERS_CFLAGS) $(PEERS_FLAGS_$*) -c $< -o $@

$(call peers_sites_o,$(PEERS_CLANG_TAGS)): $(PEERS_OBJ)/sites_%.o: $(PEERS_GEN)/sites_%.c include/edgeprobe.h | $(PEERS_OBJ)
	$(PEERS_CLANG) $(PEERS_CFLAGS) $(PEERS_FLAGS_$*) -c $< -o $@

$(call peers_sites_o,$(PEERS_XRAY_TAGS)): $(PEERS_OBJ)/sites_%.o: $(PEERS_GEN)/sites_%.c | $(PEERS_OBJ)
	$(PEERS_CLANG) $(PEERS_CFLAGS) $(PEERS_XRAY) -c $< -o $@

# ---- hand-written programs ---------------------------------------------------
PEERS_GCC_PROGS := many invoke toggle scale
$(PEERS_GCC_PROGS:%=$(PEERS_OBJ)/%.o): $(PEERS_OBJ)/%.o: $(PEERS_DIR)/%.c $(PEERS_DIR)/peers.h $(PEERS_DIR)/xray_c.h include/edgeprobe.h | $(PEERS_OBJ)
	$(PEERS_GCC) $(PEERS_CFLAGS) -Wall -Wextra -c $< -o $@

$(PEERS_OBJ)/invoke_xray.o $(PEERS_OBJ)/scale_xray.o: $(PEERS_OBJ)/%.o: $(PEERS_DIR)/%.c $(PEERS_DIR)/xray_c.h | $(PEERS_OBJ)
	$(PEERS_CLANG) $(PEERS_CFLAGS) $(PEERS_XRAY) -Wall -c $< -o $@

$(PEERS_OBJ)/invoke_xray_entry.o: $(PEERS_DIR)/invoke_xray_entry.c $(PEERS_DIR)/xray_c.h | $(PEERS_OBJ)
	$(PEERS_CLANG) $(PEERS_CFLAGS) $(PEERS_XRAY) -fxray-instrumentation-bundle=function-entry -Wall -c $< -o $@

$(PEERS_BIN)/many: $(PEERS_OBJ)/many.o $(PEERS_MANY_SITES) | $(PEERS_BIN)
	$(PEERS_LINK) $^ -o $@

$(PEERS_BIN)/toggle: $(PEERS_OBJ)/toggle.o $(PEERS_TOGGLE_SITES) | $(PEERS_BIN)
	$(PEERS_LINK) $^ -o $@

$(PEERS_BIN)/invoke: $(PEERS_OBJ)/invoke.o $(PEERS_OBJ)/invoke_xray.o $(PEERS_OBJ)/invoke_xray_entry.o | $(PEERS_BIN)
	$(PEERS_LINK) $^ -o $@

$(PEERS_BIN)/scale: $(PEERS_OBJ)/scale.o $(PEERS_OBJ)/scale_xray.o | $(PEERS_BIN)
	$(PEERS_LINK) $^ -o $@

$(PEERS_BIN)/usdt_uprobe: $(PEERS_DIR)/usdt_uprobe.c $(PEERS_DIR)/peers.h | $(PEERS_BIN)
	$(PEERS_GCC) $(PEERS_CFLAGS) -Wall -Wextra $< -o $@

# ---- start-up binaries -------------------------------------------------------
$(PEERS_ST_STAMP): $(PEERS_DIR)/gen_startup.py
	@mkdir -p $(@D)
	$(PEERS_PY) $(PEERS_DIR)/gen_startup.py $(@D) $(PEERS_ST_NTU) $(PEERS_ST_NFN) $(PEERS_ST_NPROBE)
	@touch $@

$(PEERS_ST_EP_O): $(PEERS_OBJ)/st_ep/%.o: $(PEERS_ST_STAMP) include/edgeprobe.h | $(PEERS_OBJ)/st_ep
	$(PEERS_GCC) $(PEERS_CFLAGS) -c $(PEERS_ST_DIR)/$*.c -o $@

$(PEERS_ST_NONE_O): $(PEERS_OBJ)/st_none/%.o: $(PEERS_ST_STAMP) include/edgeprobe.h | $(PEERS_OBJ)/st_none
	$(PEERS_GCC) $(PEERS_CFLAGS) -DEDGEPROBE_DISABLE_ALL -c $(PEERS_ST_DIR)/$*.c -o $@

$(PEERS_BIN)/startup_ep: $(PEERS_ST_EP_O) | $(PEERS_BIN)
	$(PEERS_GCC) -pthread $^ -o $@

$(PEERS_BIN)/startup_none: $(PEERS_ST_NONE_O) | $(PEERS_BIN)
	$(PEERS_GCC) -pthread $^ -o $@
