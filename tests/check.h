/* check.h - the smallest test harness: CHECK(cond) records a failure with
 * its line and goes on; check_done() prints a summary line and gives the
 * exit status. Each test program is one test case of tests/run.sh. */
#ifndef CHECK_H
#define CHECK_H
#include <stdio.h>
#include <string.h>
#include <stdint.h>

static int check_failures, check_count;
#define CHECK(cond)                                                            \
    do {                                                                       \
        check_count++;                                                         \
        if (!(cond)) {                                                         \
            check_failures++;                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                      \
    } while (0)
#define CHECK_EQ(a, b)                                                         \
    do {                                                                       \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);        \
        check_count++;                                                         \
        if (check_a_ != check_b_) {                                            \
            check_failures++;                                                  \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s = %lld, %s = %lld\n", __FILE__, \
                    __LINE__, #a, check_a_, #b, check_b_);                     \
        }                                                                      \
    } while (0)
static inline int check_done(const char *name) {
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

/* Site bytes helpers shared by the tests, per architecture. */
#if defined(__aarch64__)
/* One A64 word: NOP, or `b target`. */
static inline uint32_t check_word(const unsigned char *site) {
    uint32_t w;
    memcpy(&w, site, 4);
    return w;
}
static inline int check_is_jmp(const unsigned char *site, const unsigned char *target) {
    long d = (long)(target - site);
    return check_word(site) == (0x14000000u | ((uint32_t)(d >> 2) & 0x03ffffffu));
}
static inline int check_is_nop(const unsigned char *site, int nop8) {
    (void)nop8;
    return check_word(site) == 0xd503201fu;
}
/* A foreign instruction a debugger might leave: brk #0. */
static const unsigned char check_foreign[4] = {0x00, 0x00, 0x20, 0xd4};
#define CHECK_SITE_LEN(flags) ((void)(flags), 4)
#else
static const unsigned char check_nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
static const unsigned char check_nop8[8] = {0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0};
/* Is the site at `site` a jmp to `target`? */
static inline int check_is_jmp(const unsigned char *site, const unsigned char *target) {
    int32_t rel;
    memcpy(&rel, site + 1, 4);
    return site[0] == 0xe9 && site + 5 + rel == target;
}
static inline int check_is_nop(const unsigned char *site, int nop8) {
    return nop8 ? memcmp(site, check_nop8, 8) == 0 : memcmp(site, check_nop5, 5) == 0;
}
/* A foreign instruction a debugger might leave: int3, then nops. */
static const unsigned char check_foreign[5] = {0xcc, 0x90, 0x90, 0x90, 0x90};
#define CHECK_SITE_LEN(flags) (((flags) & EDGEPROBE__F_NOP8) ? 8 : 5)
#endif
#endif
