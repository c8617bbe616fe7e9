/* The back end's site forms against the encodings written out independently
 * in tests/sites.h: off and on for every form, jumps forwards and backwards,
 * and (aarch64) the edges of `b`'s +-128 MiB reach, where a site that
 * cannot reach its target must be refused (0), never mis-encoded. Pure
 * computation on fake addresses: nothing is executed or written. */
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"

static unsigned char *at(uintptr_t a) { return (unsigned char *)a; }

/* Does the "on" form at site jump to target, and the "off" form hold a NOP? */
static void check_forms(uintptr_t site, uintptr_t target, unsigned flags) {
    unsigned char on[8] = {0}, off[8] = {0}; /* a refused form writes nothing */
    size_t n = edgeprobe__site_form(at(site), at(target), flags, 1, on);
    CHECK_EQ(n, CHECK_SITE_LEN(flags));
    CHECK_EQ(edgeprobe__site_form(at(site), at(target), flags, 0, off), n);
    /* check_is_jmp compares target with the site's own address: shift the
     * target by the distance from the buffer to the fake site */
    CHECK(check_is_jmp(on, on + (target - site)));
    CHECK(check_is_nop(off, flags & EDGEPROBE__F_NOP8));
    CHECK(!check_is_nop(on, flags & EDGEPROBE__F_NOP8));
}

int main(void) {
    const uintptr_t base = (uintptr_t)1 << 40;
    unsigned char out[8];
    check_forms(base, base + 64, 0);
    check_forms(base, base - 4096, 0);
#if defined(__aarch64__)
    {
        const uintptr_t reach = (uintptr_t)1 << 27; /* 128 MiB */
        check_forms(base, base + reach - 4, 0);    /* the farthest forwards */
        check_forms(base, base - reach, 0);        /* the farthest backwards */
        CHECK_EQ(edgeprobe__site_form(at(base), at(base + reach), 0, 1, out), 0);
        CHECK_EQ(edgeprobe__site_form(at(base), at(base - reach - 4), 0, 1, out), 0);
        CHECK_EQ(edgeprobe__site_form(at(base), at(base + 2), 0, 1, out), 0); /* not an instruction */
        CHECK_EQ(edgeprobe__site_form(at(base), at(base + reach), 0, 0, out), 4); /* the NOP always fits */
    }
#else
    check_forms(base, base + 0x7fff0000u, 0);
    check_forms(base + 3, base - 100, EDGEPROBE__F_NOP8);
    CHECK_EQ(edgeprobe__site_form(at(base), at(base + 8), EDGEPROBE__F_NOP8, 1, out), 8);
#endif
    return check_done("t_arch");
}
