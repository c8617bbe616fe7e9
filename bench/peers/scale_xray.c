/* scale_xray.c - clang side of workload 4 (see scale.c): one XRay-instrumented
 * hot function (entry + exit sleds) and a handler that counts. Compiled with
 * clang -fxray-instrument -fxray-instruction-threshold=1. */
#include "xray_c.h"

volatile unsigned long xr_scale_hits;
PEERS_XRAY_ALWAYS void xr_hot(void) { __asm__ volatile(""); }
PEERS_XRAY_NEVER void xr_scale_handler(int32_t id, enum peers_xray_entry_type t) {
    (void)id;
    if (t == PEERS_XRAY_ENTRY) xr_scale_hits++;
}
/* The XRay id of xr_hot with the handler installed, or 0. */
PEERS_XRAY_NEVER int32_t xr_scale_setup(void) {
    __xray_set_handler(xr_scale_handler);
    return peers_xray_id_of((const void *)xr_hot);
}
