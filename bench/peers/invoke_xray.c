/* invoke_xray.c - clang side of workload 2 (see invoke.c). Compiled with
 * clang -fxray-instrument -fxray-instruction-threshold=1: xr_target_full has
 * entry and exit sleds; everything else is never instrumented. */
#include "xray_c.h"

#define PEERS_BLOCK 256
void xr_target_entry(uintptr_t v); /* invoke_xray_entry.c: entry sled only */

PEERS_XRAY_ALWAYS void xr_target_full(uintptr_t v) { __asm__ volatile("" ::"r"(v)); }
PEERS_XRAY_NEVER void xr_direct(uintptr_t v) { __asm__ volatile("" ::"r"(v)); }
PEERS_XRAY_NEVER void xr_handler(int32_t id, enum peers_xray_entry_type t) {
    __asm__ volatile("" ::"r"(id), "r"(t));
}

PEERS_XRAY_NEVER void xr_loop_none(void) {
    uintptr_t i;
    for (i = 0; i < PEERS_BLOCK; i++) __asm__ volatile("" ::"r"(i));
}
PEERS_XRAY_NEVER void xr_loop_direct(void) {
    uintptr_t i;
    for (i = 0; i < PEERS_BLOCK; i++) xr_direct(i);
}
PEERS_XRAY_NEVER void xr_loop_full(void) {
    uintptr_t i;
    for (i = 0; i < PEERS_BLOCK; i++) xr_target_full(i);
}
PEERS_XRAY_NEVER void xr_loop_entry(void) {
    uintptr_t i;
    for (i = 0; i < PEERS_BLOCK; i++) xr_target_entry(i);
}

/* Patch (on) or unpatch the two targets; 0 on success. */
PEERS_XRAY_NEVER int xr_setup(int on, void *full, void *entry) {
    int32_t a = peers_xray_id_of(full), b = peers_xray_id_of(entry);
    if (!a || !b) return -1;
    __xray_set_handler(xr_handler);
    if (on) return (__xray_patch_function(a) != PEERS_XRAY_SUCCESS) | (__xray_patch_function(b) != PEERS_XRAY_SUCCESS) << 1;
    return (__xray_unpatch_function(a) != PEERS_XRAY_SUCCESS) | (__xray_unpatch_function(b) != PEERS_XRAY_SUCCESS) << 1;
}
