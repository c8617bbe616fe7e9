# bench/compile/compile.mk - compile cost of the markers: CPU time and text
# size of programs of 1, 10 and 100 files, gcc and clang at -O2, against the
# same program with no markers, next to <sys/sdt.h> and LTTng-UST.
#
#   make bench-compile                      the worktree's include/edgeprobe.h
#   make bench-compile COMPILE_HEADERS="before=build/bench-compile/before after=include"
#
# COMPILE_HEADERS is a list of LABEL=HEADER_DIR (a directory holding
# edgeprobe.h); build/bench-compile/before/edgeprobe.h is made from
# COMPILE_BEFORE_REV, the header before the stb-style split (pinned by
# commit, because main's header changes when the split lands). Run as root
# it installs systemtap-sdt-dev and liblttng-ust-dev; otherwise it names
# them and measures without those variants. With the pre-split header the
# run takes about 8 CPU-minutes (COMPILE_ARGS="--sizes 1,10": about 2); most
# of it is compiling the 6,700-line header in each of 2 x 101 files, the cost
# being measured. bench/compile/run.py does the work (its first comment says
# how to call it directly); see bench/RESULTS.md, "Compile cost per file".
# Every name starts with COMPILE_ or compile- so that it cannot clash with
# the including Makefile.

COMPILE_DIR        := bench/compile
COMPILE_OUT        := build/bench-compile
COMPILE_HEADERS    ?= edgeprobe=include
COMPILE_BEFORE_REV ?= 6eed7047eb817d797d5e404b0798459728ee64ed
COMPILE_GCC        ?= gcc
COMPILE_CLANG      ?= clang
COMPILE_ARGS       ?=
COMPILE_PKGS       := systemtap-sdt-dev liblttng-ust-dev

.PHONY: bench-compile compile-deps compile-clean

bench-compile: compile-deps $(COMPILE_OUT)/before/edgeprobe.h
	python3 $(COMPILE_DIR)/run.py --out $(COMPILE_OUT) --gcc $(COMPILE_GCC) --clang $(COMPILE_CLANG) \
	    $(COMPILE_ARGS) $(COMPILE_HEADERS)

# The header as it was before the split, whatever main holds by now.
$(COMPILE_OUT)/before/edgeprobe.h:
	mkdir -p $(@D)
	git show $(COMPILE_BEFORE_REV):include/edgeprobe.h > $@.tmp && mv $@.tmp $@

compile-clean:
	rm -rf $(COMPILE_OUT)

# As root, install what is missing (apt-get update only if the first try
# fails); otherwise name it and go on: run.py skips the variant and says why.
compile-deps:
	@missing=""; for p in $(COMPILE_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	        echo "bench-compile: installing:$$missing"; \
	        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || \
	        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; } || \
	        echo "bench-compile: could not install$$missing; those variants are skipped"; \
	    else \
	        echo "bench-compile: missing packages:$$missing (as root: apt-get install -y$$missing);"; \
	        echo "bench-compile: measuring without them"; \
	    fi; \
	fi
