/* xray_c.h - the parts of LLVM XRay's <xray/xray_interface.h> (a C++ header)
 * that the benchmarks use, declared for C. Runtime: libclang-rt-14-dev,
 * linked by `clang -fxray-instrument`. */
#ifndef PEERS_XRAY_C_H
#define PEERS_XRAY_C_H
#include <stddef.h>
#include <stdint.h>
enum peers_xray_entry_type { PEERS_XRAY_ENTRY = 0, PEERS_XRAY_EXIT = 1, PEERS_XRAY_TAIL = 2 };
/* XRayPatchingStatus: 0 NOT_INITIALIZED, 1 SUCCESS, 2 ONGOING, 3 FAILED */
int __xray_set_handler(void (*entry)(int32_t, enum peers_xray_entry_type));
int __xray_patch_function(int32_t func_id);
int __xray_unpatch_function(int32_t func_id);
uintptr_t __xray_function_address(int32_t func_id);
size_t __xray_max_function_id(void);
#define PEERS_XRAY_SUCCESS 1
#define PEERS_XRAY_NEVER __attribute__((xray_never_instrument, noinline))
#define PEERS_XRAY_ALWAYS __attribute__((xray_always_instrument, noinline))

/* XRay function id of a function address, or 0. */
static inline int32_t peers_xray_id_of(const void *fn) {
    size_t i, n = __xray_max_function_id();
    for (i = 1; i <= n; i++)
        if (__xray_function_address((int32_t)i) == (uintptr_t)fn) return (int32_t)i;
    return 0;
}
#endif
