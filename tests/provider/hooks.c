/* The provider and the implementation: one translation unit, not
 * instrumented itself. */
#define EDGEPROBE_IMPLEMENTATION
#define EDGEPROBE_PROVIDER
#include "edgeprobe.h"
