/* Every register intact around an enabled TRACE (argument form), at the
 * vector width this file is compiled for: plain (xmm0-15), -mavx2 (ymm0-15)
 * or -mavx512f -mavx512bw (zmm0-31 and k0-7). One asm statement seeds every
 * general register but %rsp, every vector register at full width (and the
 * mask registers), runs a TRACE site built from the header's own marker
 * text, and stores what it finds afterwards. The sink formats with the C
 * library (which uses AVX where the CPU has it) and then wipes every vector
 * register of this width on purpose (vzeroall, vpxord, kxor), so a
 * trampoline that saves too little is caught every time.
 *     regs            plain, xmm
 *     regs -mavx2     ymm
 *     regs -mavx512f -mavx512bw    zmm and masks (skipped without AVX-512)
 *     -DEDGEPROBE__ARGS_VEC=0 with -mavx2: the mutant, must fail
 *     -DREGS_YMM without -mavx: ymm values live at the site of a file built
 *         for SSE only (as LTO or a target attribute make them); the
 *         trampoline must save what the CPU enables, not what the file
 *         was compiled for
 *     -DREGS_LOW: every bit above 128 of the seeds zero (SSE code's
 *         registers): the trampoline's other restore (section 27.1)
 *     -DREGS_RECORD=PATH: the site's arguments are general registers only
 *         and it is recorded to PATH, not formatted: the recorded probe's
 *         fast path, which saves no vector register at all */
#include <stdlib.h>
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"

#if defined(__AVX512F__)
#define VW 64
#define NV 32
#define VMOV "vmovdqu64"
#define VREG "zmm"
#elif defined(__AVX__) || defined(REGS_YMM)
#define VW 32
#define NV 16
#define VMOV "vmovdqu"
#define VREG "ymm"
#else
#define VW 16
#define NV 16
#define VMOV "movdqu"
#define VREG "xmm"
#endif
#define SEED(n) (0x1111111111111111ULL * (n) + 0x0102030405060708ULL)

unsigned char vec_seed[NV * VW] __attribute__((visibility("hidden"), aligned(64)));
unsigned char vec_after[NV * VW] __attribute__((visibility("hidden"), aligned(64)));
uint64_t regs_after[16] __attribute__((visibility("hidden")));
uint64_t k_seed[8] __attribute__((visibility("hidden")));
uint64_t k_after[8] __attribute__((visibility("hidden")));
static char line[256];
static int lines;

static void regs_sink(const char *text) {
    char scratch[128];
    snprintf(scratch, sizeof scratch, "%s %f %g", text, 3.25 * lines, 1e300); /* libc's own vector code */
    snprintf(line, sizeof line, "%s", text);
    lines++;
#if defined(__AVX512F__)
#define WIPE(n) "vpxord %%zmm" #n ", %%zmm" #n ", %%zmm" #n "\n"
    __asm__ volatile(WIPE(0) WIPE(1) WIPE(2) WIPE(3) WIPE(4) WIPE(5) WIPE(6) WIPE(7) WIPE(8) WIPE(9) WIPE(10)
                     WIPE(11) WIPE(12) WIPE(13) WIPE(14) WIPE(15) WIPE(16) WIPE(17) WIPE(18) WIPE(19) WIPE(20)
                     WIPE(21) WIPE(22) WIPE(23) WIPE(24) WIPE(25) WIPE(26) WIPE(27) WIPE(28) WIPE(29) WIPE(30)
                     WIPE(31)
#ifdef __AVX512BW__
                     "kxorq %%k1, %%k1, %%k1\n kxorq %%k2, %%k2, %%k2\n kxorq %%k7, %%k7, %%k7\n"
#endif
                     ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
                     "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20",
                     "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30",
                     "xmm31", "k1", "k2", "k7");
#elif defined(__AVX__) || defined(REGS_YMM)
    __asm__ volatile("vzeroall" ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
                     "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
#else
#define WIPE(n) "pxor %%xmm" #n ", %%xmm" #n "\n"
    __asm__ volatile(WIPE(0) WIPE(1) WIPE(2) WIPE(3) WIPE(4) WIPE(5) WIPE(6) WIPE(7) WIPE(8) WIPE(9) WIPE(10)
                     WIPE(11) WIPE(12) WIPE(13) WIPE(14) WIPE(15)
                     ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
                     "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
#endif
}

#define SETR(r, n) "movabs $" #n "* 0x1111111111111111 + 0x0102030405060708, %%" #r "\n"
#define SAVER(r, i) "mov %%" #r ", regs_after+" #i "*8(%%rip)\n"
#define VLOAD(n) VMOV " vec_seed+" #n "*" EDGEPROBE__STR(VW) "(%%rip), %%" VREG #n "\n"
#define VSAVE(n) VMOV " %%" VREG #n ", vec_after+" #n "*" EDGEPROBE__STR(VW) "(%%rip)\n"
#define V16(m) m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7) m(8) m(9) m(10) m(11) m(12) m(13) m(14) m(15)
#if NV == 32
#define VALL(m) V16(m) m(16) m(17) m(18) m(19) m(20) m(21) m(22) m(23) m(24) m(25) m(26) m(27) m(28) m(29) m(30) m(31)
#else
#define VALL(m) V16(m)
#endif
#if defined(__AVX512BW__)
#define KLOAD "kmovq k_seed+8(%%rip), %%k1\n kmovq k_seed+16(%%rip), %%k2\n kmovq k_seed+56(%%rip), %%k7\n"
#define KSAVE "kmovq %%k1, k_after+8(%%rip)\n kmovq %%k2, k_after+16(%%rip)\n kmovq %%k7, k_after+56(%%rip)\n"
#define KCLOB , "k1", "k2", "k7"
#else
#define KLOAD
#define KSAVE
#define KCLOB
#endif
#if NV == 32
#define VCLOB16 , "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", \
    "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31"
#else
#define VCLOB16
#endif
#ifdef REGS_RECORD
static const char regs_fmt[] = "rbx=%lx r12d=%d";
#define REGS_ARGSITE                                                           \
    EDGEPROBE__ARGSITE_ASM(tr_regs, 2, "8@%%rbx -4@%%r12d", "movq %%rbx, %%r11\n movq %%r12, %%r11\n", \
                           "%c[edgeprobe__fmt] - ., %c[edgeprobe__sink] - .")
#else
static const char regs_fmt[] = "rbx=%lx r12d=%d xmm3=%a";
#define REGS_ARGSITE                                                           \
    EDGEPROBE__ARGSITE_ASM(tr_regs, 3, "8@%%rbx -4@%%r12d 8@%%xmm3",                 \
                           "movq %%rbx, %%r11\n movq %%r12, %%r11\n movq %%xmm3, %%r11\n", \
                           "%c[edgeprobe__fmt] - ., %c[edgeprobe__sink] - .")
#endif

__attribute__((noinline)) static void run_register_site(void) {
    EDGEPROBE__MARK_DEF(mk);
    __asm__ volatile("lea -128(%%rsp), %%rsp\n push %%rbp\n"
                     VALL(VLOAD) KLOAD
                     SETR(rax, 0) SETR(rcx, 1) SETR(rdx, 2) SETR(rbx, 3) SETR(rbp, 5) SETR(rsi, 6) SETR(rdi, 7)
                     SETR(r8, 8) SETR(r9, 9) SETR(r10, 10) SETR(r11, 11) SETR(r12, 12) SETR(r13, 13) SETR(r14, 14)
                     SETR(r15, 15)
                     REGS_ARGSITE
                     SAVER(rax, 0) SAVER(rcx, 1) SAVER(rdx, 2) SAVER(rbx, 3) SAVER(rbp, 5) SAVER(rsi, 6)
                     SAVER(rdi, 7) SAVER(r8, 8) SAVER(r9, 9) SAVER(r10, 10) SAVER(r11, 11) SAVER(r12, 12)
                     SAVER(r13, 13) SAVER(r14, 14) SAVER(r15, 15)
                     VALL(VSAVE) KSAVE
                     "pop %%rbp\n lea 128(%%rsp), %%rsp\n"
                     :
                     : EDGEPROBE__RECORD_OPS(mk, EDGEPROBE__KIND_FLAGS(EDGEPROBE_KIND_TRACE, EDGEPROBE__F_ARGS)),
                       [edgeprobe__fmt] "i"(regs_fmt), [edgeprobe__sink] "i"(&regs_sink)
                     : "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14",
                       "r15", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
                       "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15" VCLOB16 KCLOB, "memory", "cc");
}

static int check_registers(const char *when) {
    int i, bad = 0;
    for (i = 0; i < 16; i++)
        if (i != 4 && regs_after[i] != SEED(i)) {
            fprintf(stderr, "%s: register %d is %llx, want %llx\n", when, i, (unsigned long long)regs_after[i],
                    (unsigned long long)SEED(i));
            bad++;
        }
    for (i = 0; i < NV; i++)
        if (memcmp(vec_after + i * VW, vec_seed + i * VW, VW)) {
            fprintf(stderr, "%s: %s%d changed\n", when, VREG, i);
            bad++;
        }
#if defined(__AVX512BW__)
    for (i = 1; i < 8; i++)
        if ((i == 1 || i == 2 || i == 7) && k_after[i] != k_seed[i]) {
            fprintf(stderr, "%s: k%d changed\n", when, i);
            bad++;
        }
#endif
    return bad;
}

int main(void) {
    int i;
#if defined(__AVX512F__)
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw")) {
        printf("skipped: this CPU has no AVX-512 (F and BW)\n");
        return 77;
    }
#elif defined(__AVX__) || defined(REGS_YMM)
    if (!__builtin_cpu_supports("avx2")) {
        printf("skipped: this CPU has no AVX2\n");
        return 77;
    }
#endif
    for (i = 0; i < NV * VW; i++) vec_seed[i] = (unsigned char)(i * 7 + 1);
#ifdef REGS_LOW
    for (i = 0; i < NV * VW; i++)
        if (i % VW >= 16) vec_seed[i] = 0;
#endif
    for (i = 0; i < 8; i++) k_seed[i] = SEED(40 + i);
    run_register_site();
    CHECK_EQ(check_registers("disabled"), 0);
    CHECK_EQ(lines, 0);
#ifdef REGS_RECORD
    CHECK_EQ(edgeprobe_record_start(EDGEPROBE__STR(REGS_RECORD), 0), 0);
    CHECK_EQ(edgeprobe_record_enable("tr_regs"), 1);
    for (i = 0; i < 3; i++) { /* the first: the thread's ring is made (the whole path) */
        memset(regs_after, 0, sizeof regs_after);
        memset(vec_after, 0, sizeof vec_after);
        run_register_site();
        CHECK_EQ(check_registers("recorded"), 0);
    }
    CHECK_EQ(lines, 0); /* recorded, never formatted */
    CHECK_EQ(edgeprobe_record_stop(), 0);
    CHECK_EQ(edgeprobe_record_lost(), 0);
    printf("%s-wide registers (%d of them) intact around a recorded PROBE site\n", VREG, NV);
#else
    {
    char want[256];
    double x3;
    CHECK_EQ(edgeprobe_enable("tr_regs"), 1);
    memset(regs_after, 0, sizeof regs_after);
    memset(vec_after, 0, sizeof vec_after);
    run_register_site();
    CHECK_EQ(lines, 1);
    CHECK_EQ(check_registers("enabled"), 0);
    memcpy(&x3, vec_seed + 3 * VW, sizeof x3);
    snprintf(want, sizeof want, regs_fmt, (unsigned long)SEED(3), (int)SEED(12), x3);
    CHECK(!strcmp(line, want));
    if (strcmp(line, want)) fprintf(stderr, "line \"%s\", want \"%s\"\n", line, want);
    printf("%s-wide registers (%d of them) intact around an enabled TRACE; line: %s\n", VREG, NV, line);
    }
#endif
    return check_done("t_trace_regs");
}
