/* tests/impl: one program of several files and objects, each object with
 * one copy of the implementation (the file that defines
 * EDGEPROBE_IMPLEMENTATION), every other file with markers only. */
#ifndef IMPL_H
#define IMPL_H
#include "edgeprobe.h"
/* The libraries' entry points stay visible under -fvisibility=hidden. */
#define IMPL_EXPORT __attribute__((visibility("default")))
#ifdef __cplusplus
extern "C" {
#endif
int impl_a(int n);                    /* a.c: markers only */
int impl_b(int n);                    /* b.c: markers only */
IMPL_EXPORT int impl_lib(int n);      /* lib.c, in libimpl.so: its own implementation */
IMPL_EXPORT int impl_plugin(int n);   /* lib.c -DPLUGIN, plugin.so (dlopen) */
#ifdef __cplusplus
}
#endif
#endif
