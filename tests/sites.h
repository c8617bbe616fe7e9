/* sites.h - what a marker site's bytes must be, per architecture, written
 * independently of the header's back end. No libc: tests/t_nolibc.c uses it
 * too (the __builtin_ calls become its own memcpy/memcmp at worst). */
#ifndef SITES_H
#define SITES_H
#include <stdint.h>
#if defined(__aarch64__)
/* One A64 word: NOP, or `b target`. */
static inline uint32_t check_word(const unsigned char *site) {
    uint32_t w;
    __builtin_memcpy(&w, site, 4);
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
    __builtin_memcpy(&rel, site + 1, 4);
    return site[0] == 0xe9 && site + 5 + rel == target;
}
static inline int check_is_nop(const unsigned char *site, int nop8) {
    return nop8 ? __builtin_memcmp(site, check_nop8, 8) == 0 : __builtin_memcmp(site, check_nop5, 5) == 0;
}
/* A foreign instruction a debugger might leave: int3, then nops. */
static const unsigned char check_foreign[5] = {0xcc, 0x90, 0x90, 0x90, 0x90};
#define CHECK_SITE_LEN(flags) (((flags) & EDGEPROBE__F_NOP8) ? 8 : 5)
#endif

#ifdef EDGEPROBE_H
/* How many sites of this binary do not hold the bytes of their probe's
 * state; report (if not NULL) hears of each. */
static inline int sites_mismatches(void (*report)(const unsigned char *site, const char *name, int on)) {
    const edgeprobe__record *rec;
    int bad = 0;
    for (rec = __start_edgeprobe_sites; rec < __stop_edgeprobe_sites; rec++) {
        const unsigned char *site = (const unsigned char *)edgeprobe__rel(&rec->site);
        const unsigned char *target = (const unsigned char *)edgeprobe__rel(&rec->target);
        const char *name = (const char *)edgeprobe__rel(&rec->name);
        edgeprobe_probe *probe = NULL;
        int on = edgeprobe_probe_find(name, &probe) == 0 && edgeprobe_probe_is_on(probe) == 1;
        int jumps = (rec->flags & EDGEPROBE__F_DEFAULT_ON) ? !on : on;
        if (jumps ? check_is_jmp(site, target) : check_is_nop(site, rec->flags & EDGEPROBE__F_NOP8)) continue;
        if (report) report(site, name, on);
        bad++;
    }
    return bad;
}
#endif
#endif
