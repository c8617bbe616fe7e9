/* Built twice: libimpl.so (linked) and plugin.so (-DPLUGIN, dlopen'ed). */
#define EDGEPROBE_IMPLEMENTATION /* this library's one copy */
#include "impl.h"
#ifdef PLUGIN
int impl_plugin(int n) {
    if (EDGEPROBE_BRANCH(impl_plugin_branch)) n += 10000;
    return n;
}
#else
int impl_lib(int n) {
    if (EDGEPROBE_BRANCH(impl_lib_branch)) n += 100000;
    return n;
}
#endif
