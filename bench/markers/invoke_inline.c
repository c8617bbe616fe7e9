/* invoke_inline.c - the HANDLER loop of invoke.c, compiled with
 * EDGEPROBE_HANDLER_INLINE=1 (the dispatch inlined into the site's block). */
#define EDGEPROBE_HANDLER_INLINE 1
#include "edgeprobe.h"
#define BLOCK 256
__attribute__((noinline)) void loop_handler_inline(void) {
    uintptr_t i;
    for (i = 0; i < BLOCK; i++) EDGEPROBE_HANDLER(inv_handler_inline, i);
}
