# edgeprobe - make demo | make test | make bench | make calibrate | make install
#
#   make demo        build and run the main demo (seconds)
#   make test        every test, gcc and clang, several modes; last line: N passed, N failed
#                    (nproc cases at a time, or EDGEPROBE_TEST_JOBS=N; one case:
#                    bash tests/run.sh NAME; names: bash tests/run.sh --list)
#   make test-aarch64  the core suite on aarch64 under qemu-aarch64 (installs the
#                    cross tools as root; make test runs it too when they are there)
#   make soak        the long stress runs (paper: 50 million toggles); not part of test
#   make bench       all benchmarks; results in bench/RESULTS.md (installs hyperfine etc.)
#   make calibrate   measure Tmax on this machine (the paper's Figure 9)
#   make bench-real  profile real programs (bzip2, lua) built with -finstrument-functions
#   make bench-markers  argument probes, handler dispatch, start-up, LTTng-UST (issue 9)
#   make bench-record   a recorded event against rdtsc, LTTng-UST, TRACE text (issue 18)
#   make bench-record-real  edgeprobe record vs uftrace record on bzip2, lua, zstd, redis
#   make bench-compile  compile CPU and text per file with markers, vs sys/sdt.h and LTTng-UST
#                    (COMPILE_HEADERS="before=build/bench-compile/before after=include")
#   make tools       build/edgeprobe (the command) and build/libedgeprobe-prof.so
#                    (edgeprobe prof -- PROGRAM: the latency profiler)
#   make install PREFIX=/usr/local
CC ?= gcc
PREFIX ?= /usr/local
BUILD := build
CFLAGS_DEMO := -O2 -Wall -Wextra -Werror -Iinclude -pthread

.PHONY: all demo test test-deps soak bench install clean tools aarch64-tools test-aarch64
all: demo tools

# The edgeprobe command: tools/edgeprobe.c dispatches to tools/cmd_*.c.
TOOL_SRC := $(wildcard tools/edgeprobe.c tools/cmd_*.c tools/control_*.c) tools/trace_file.c tools/export.c tools/launch.c \
	tools/ring_files.c tools/prof_view.c tools/attach_seccomp.c
$(BUILD)/edgeprobe: $(TOOL_SRC) tools/tool.h tools/control.h tools/prof_common.h tools/trace_file.h tools/export.h tools/launch.h \
	tools/ring_files.h tools/prof_view.h tools/attach_seccomp.h include/edgeprobe.h | $(BUILD)
	$(CC) $(CFLAGS_DEMO) -Itools $(TOOL_SRC) -o $@
# The profiler `edgeprobe prof` preloads: its agent, beside the command.
PROF_SRC := tools/prof_agent.c
$(BUILD)/libedgeprobe-prof.so: $(PROF_SRC) tools/prof_common.h tools/signal_defer.h tools/daemon_follow.h include/edgeprobe.h | $(BUILD)
	$(CC) -O2 -Wall -Wextra -Werror -Iinclude -fPIC -shared $(PROF_SRC) -o $@ -pthread -ldl
# Empty hooks for -finstrument-functions programs (see tools/hooks.c).
$(BUILD)/libedgeprobe-hooks.so: tools/hooks.c | $(BUILD)
	$(CC) -O2 -Wall -Wextra -Werror -fPIC -shared $< -o $@
# The recorder `edgeprobe record` preloads (header section 30).
$(BUILD)/libedgeprobe-record.so: tools/record_agent.c tools/signal_defer.h tools/daemon_follow.h include/edgeprobe.h | $(BUILD)
	$(CC) -O2 -Wall -Wextra -Werror -Iinclude -fPIC -shared $< -o $@ -pthread -ldl
# The agent `edgeprobe attach` loads into a running process: the profiler,
# attached (tools/prof_agent.c, ATTACHED).
$(BUILD)/libedgeprobe-attach.so: $(PROF_SRC) tools/prof_common.h include/edgeprobe.h | $(BUILD)
	$(CC) -O2 -Wall -Wextra -Werror -Iinclude -DPROF_ATTACHED -fPIC -shared $(PROF_SRC) -o $@ -pthread -ldl
tools: $(BUILD)/edgeprobe $(BUILD)/libedgeprobe-prof.so $(BUILD)/libedgeprobe-hooks.so $(BUILD)/libedgeprobe-record.so \
	$(BUILD)/libedgeprobe-attach.so

$(BUILD)/demo: examples/demo.c include/edgeprobe.h | $(BUILD)
	$(CC) $(CFLAGS_DEMO) $< -o $@
$(BUILD):
	mkdir -p $@

demo: $(BUILD)/demo
	./$(BUILD)/demo

test: aarch64-tools test-deps
	bash tests/run.sh

# aarch64 (tests/drivers/embedded.sh): cross-built tests run under
# qemu-aarch64. As root, install the tools when they are missing; otherwise
# name them (make test then skips those cases and says so).
A64_PACKAGES := gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user g++-aarch64-linux-gnu
A64_HAVE := command -v aarch64-linux-gnu-gcc >/dev/null && command -v aarch64-linux-gnu-g++ >/dev/null && \
	command -v qemu-aarch64 >/dev/null && test -e /usr/aarch64-linux-gnu/lib/libc.so.6
aarch64-tools:
	@$(A64_HAVE) || if [ "$$(id -u)" = 0 ]; then \
		echo "installing $(A64_PACKAGES)"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(A64_PACKAGES)) >/dev/null || \
			echo "could not install $(A64_PACKAGES): the aarch64 tests will be skipped"; \
	else echo "the aarch64 tests need $(A64_PACKAGES) (apt-get install them, or make as root); skipping them"; fi
test-aarch64: aarch64-tools
	@$(A64_HAVE) || { echo "make test-aarch64: missing $(A64_PACKAGES)"; exit 1; }
	bash tests/run.sh aarch64

# Packages the tests use (bpftrace: the USDT cases; golang-go, protobuf-compiler,
# chromium, tesseract-ocr, npm: the readers of recordings; locales: the de_DE
# source prof-locale builds; they skip without them),
# as COMMAND:PACKAGE. A command already on PATH (npm from another source, say)
# needs nothing; each missing one is installed on its own when run as root (CI),
# so one package apt cannot install does not keep the others out; named otherwise.
TEST_DEPS := bpftrace:bpftrace objdump:binutils go:golang-go protoc:protobuf-compiler \
	chromium:chromium tesseract:tesseract-ocr npm:npm locale-gen:locales
test-deps:
	@missing=""; for dep in $(TEST_DEPS); do \
	    command -v $${dep%%:*} >/dev/null 2>&1 || missing="$$missing $${dep#*:}"; done; \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq >/dev/null 2>&1; failed=""; \
	    for p in $$missing; do DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$p >/dev/null 2>&1 || failed="$$failed $$p"; done; \
	    [ -z "$$failed" ] || echo "test-deps: could not install$$failed; the cases that need them will skip"; \
	elif [ -n "$$missing" ]; then echo "test-deps: missing$$missing (apt-get install -y$$missing as root); those cases will skip"; fi

soak:
	EDGEPROBE_SOAK=1 bash tests/run.sh stress
	FORK_STORM_SECONDS=20 DL_STORM_SECONDS=20 bash tests/run.sh -k storm

install: tools
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/edgeprobe $(DESTDIR)$(PREFIX)/bin/edgeprobe
	install -d $(DESTDIR)$(PREFIX)/lib/edgeprobe
	install -m 644 $(BUILD)/libedgeprobe-prof.so $(DESTDIR)$(PREFIX)/lib/edgeprobe/libedgeprobe-prof.so
	install -m 644 $(BUILD)/libedgeprobe-record.so $(DESTDIR)$(PREFIX)/lib/edgeprobe/libedgeprobe-record.so
	install -m 644 $(BUILD)/libedgeprobe-attach.so $(DESTDIR)$(PREFIX)/lib/edgeprobe/libedgeprobe-attach.so
	install -m 644 $(BUILD)/libedgeprobe-hooks.so $(DESTDIR)$(PREFIX)/lib/libedgeprobe-hooks.so
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/edgeprobe $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 include/edgeprobe.h $(DESTDIR)$(PREFIX)/include/edgeprobe.h
	install -m 644 linker/edgeprobe.ld $(DESTDIR)$(PREFIX)/share/edgeprobe/edgeprobe.ld
	sed 's|@PREFIX@|$(PREFIX)|' edgeprobe.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/edgeprobe.pc

clean:
	rm -rf $(BUILD) bench/out

# Benchmark fragments (each owns its targets and variables). bench-peers
# installs hyperfine, systemtap-sdt-dev and libclang-rt-14-dev with apt-get
# when run as root, and names them otherwise; bench-compile does the same
# for systemtap-sdt-dev and liblttng-ust-dev.
include bench/core.mk bench/patchbench.mk bench/peers.mk bench/real.mk bench/fprobe.mk bench/size.mk bench/control.mk bench/markers.mk bench/record.mk
include bench/compile/compile.mk
bench: bench-core bench-patch bench-peers bench-size bench-fprobe bench-control bench-markers bench-compile bench-record
