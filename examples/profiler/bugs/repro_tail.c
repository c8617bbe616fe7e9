/* Bug: gcc -O2 ends a void instrumented function with `jmp
 * __cyg_profile_func_exit` (a sibling call). The provider takes
 * __builtin_return_address(0) - 5 as the probe site, which is then the
 * CALLER's `call bump`; deactivating bump's exit probe removes that call.
 *   gcc -O2 -Iinclude -c provider.c     (provider.c: #define EDGEPROBE_PROVIDER + #include "edgeprobe.h")
 *   gcc -O2 -finstrument-functions -rdynamic -Iinclude repro_tail.c provider.o && ./a.out */
#include "edgeprobe.h"
#include <stdio.h>
int counter;
__attribute__((noinline)) void bump(void) { counter++; }
__attribute__((no_instrument_function)) static void switch_off(int kind) {
    int id, n = edgeprobe_point_count();
    for (id = 0; id < n; id++) {
        edgeprobe_info in;
        if (edgeprobe_point_info(id, &in) == 0 && (int)in.kind == kind)
            printf("%s probe of %s: site %p (bump is at %p); deactivate -> %d\n",
                   kind == EDGEPROBE_KIND_EXIT ? "exit" : "entry", in.name, in.site, (void *)bump,
                   edgeprobe_provider_deactivate(id));
    }
}
/* the one call site of bump */
__attribute__((noinline, no_instrument_function)) static void call_bump(void) {
    bump();
    __asm__ volatile("");           /* not a tail call: call_bump has one `call bump` */
}
__attribute__((no_instrument_function)) int main(void) {
    int i;
    for (i = 0; i < 3; i++) {
        call_bump();                /* the first call discovers bump's probes */
        if (i == 0) switch_off(EDGEPROBE_KIND_EXIT);
    }
    printf("counter = %d (expected 3)\n", counter);
    return counter != 3;
}
