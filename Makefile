# edgeprobe - make demo | make test | make bench | make calibrate | make install
#
#   make demo        build and run the main demo (seconds)
#   make test        every test, gcc and clang, several modes; last line: N passed, N failed
#   make soak        the long stress runs (paper: 50 million toggles); not part of test
#   make bench       all benchmarks; results in bench/RESULTS.md (installs hyperfine etc.)
#   make calibrate   measure Tmax on this machine (the paper's Figure 9)
#   make bench-real  profile real programs (bzip2, lua) built with -finstrument-functions
#   make bench-markers  argument probes, handler dispatch, start-up, LTTng-UST (issue 9)
#   make tools       build/edgeprobe (the command) and build/libedgeprobe-prof.so
#   make install PREFIX=/usr/local
CC ?= gcc
PREFIX ?= /usr/local
BUILD := build
CFLAGS_DEMO := -O2 -Wall -Wextra -Werror -Iinclude -pthread

.PHONY: all demo test test-deps soak bench install clean tools
all: demo tools

# The edgeprobe command: tools/edgeprobe.c dispatches to tools/cmd_*.c.
TOOL_SRC := $(wildcard tools/edgeprobe.c tools/cmd_*.c)
$(BUILD)/edgeprobe: $(TOOL_SRC) tools/tool.h include/edgeprobe.h | $(BUILD)
	$(CC) $(CFLAGS_DEMO) -Itools $(TOOL_SRC) -o $@
tools: $(BUILD)/edgeprobe

$(BUILD)/demo: examples/demo.c include/edgeprobe.h | $(BUILD)
	$(CC) $(CFLAGS_DEMO) $< -o $@
$(BUILD):
	mkdir -p $@

demo: $(BUILD)/demo
	./$(BUILD)/demo

test: test-deps
	bash tests/run.sh

# Packages the tests use (bpftrace: the USDT cases; they skip without it):
# installed when run as root (CI), named otherwise.
TEST_PKGS := bpftrace binutils
test-deps:
	@missing=""; command -v dpkg >/dev/null 2>&1 && for p in $(TEST_PKGS); do \
	    dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	        DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing >/dev/null 2>&1 || \
	        { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing >/dev/null; } || \
	        echo "test-deps: could not install$$missing; those cases will skip"; \
	    else echo "test-deps: missing$$missing (apt-get install -y$$missing as root); those cases will skip"; fi; \
	fi

soak:
	EDGEPROBE_SOAK=1 bash tests/run.sh stress

install: tools
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/edgeprobe $(DESTDIR)$(PREFIX)/bin/edgeprobe
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/edgeprobe $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 include/edgeprobe.h $(DESTDIR)$(PREFIX)/include/edgeprobe.h
	install -m 644 linker/edgeprobe.ld $(DESTDIR)$(PREFIX)/share/edgeprobe/edgeprobe.ld
	sed 's|@PREFIX@|$(PREFIX)|' edgeprobe.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/edgeprobe.pc

clean:
	rm -rf $(BUILD) bench/out

# Benchmark fragments (each owns its targets and variables). bench-peers
# installs hyperfine, systemtap-sdt-dev and libclang-rt-14-dev with apt-get
# when run as root, and names them otherwise.
include bench/core.mk bench/patchbench.mk bench/peers.mk bench/real.mk bench/markers.mk
bench: bench-core bench-patch bench-peers
