/* A 16 KiB region of the test binary's own .text (so rel32 reaches C
 * functions), page aligned, filled with int3. Tests lay out instructions in
 * it with code_write() - test set-up, not concurrent patching. */
#ifndef CODE_REGION_H
#define CODE_REGION_H
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

__asm__(".pushsection .text.code_region,\"ax\",@progbits\n"
        ".balign 4096\n"
        ".globl code_region\n"
        "code_region: .fill 16384, 1, 0xcc\n"
        ".popsection\n");
extern unsigned char code_region[16384];

/* The page stays writable: edgeprobe's keep-writable policy may already
 * hold it open, and must not find it read-only behind its back. */
static inline void code_write(unsigned char *at, const void *bytes, size_t n) {
    uintptr_t pg = (uintptr_t)at & ~(uintptr_t)4095;
    mprotect((void *)pg, ((uintptr_t)at + n - pg + 4095) & ~(uintptr_t)4095, PROT_READ | PROT_WRITE | PROT_EXEC);
    memcpy(at, bytes, n);
}
/* `call target` encoded for a call at `at`. */
static inline void code_call(unsigned char out[5], const unsigned char *at, const void *target) {
    int32_t rel = (int32_t)((const unsigned char *)target - (at + 5));
    out[0] = 0xe8;
    memcpy(out + 1, &rel, 4);
}
/* A site of 5 bytes followed by ret, that `S` bytes before a line ends
 * (S = 0: well inside a line). Returns the site. */
static inline unsigned char *code_site(unsigned char *line_base, int split, const unsigned char insn[5]) {
    unsigned char *site = split ? line_base + 64 - split : line_base + 8, buf[6];
    memcpy(buf, insn, 5);
    buf[5] = 0xc3;
    code_write(site, buf, 6);
    return site;
}
#endif
