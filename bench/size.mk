# make bench-size: the freestanding core's size (text, data, registry heap),
# x86-64 and aarch64, gcc and clang, with and without EDGEPROBE_CORE_ONLY
# (bench/size.sh). The table goes to bench/out/size.md; RESULTS.md quotes it.
.PHONY: bench-size
bench-size:
	mkdir -p bench/out
	bash bench/size.sh | tee bench/out/size.md
