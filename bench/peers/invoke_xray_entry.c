/* invoke_xray_entry.c - an XRay target with an entry sled only: compiled with
 * clang -fxray-instrument -fxray-instruction-threshold=1
 * -fxray-instrumentation-bundle=function-entry (see invoke.c). */
#include "xray_c.h"
PEERS_XRAY_ALWAYS void xr_target_entry(uintptr_t v) { __asm__ volatile("" ::"r"(v)); }
