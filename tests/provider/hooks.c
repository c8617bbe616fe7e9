/* The provider: one translation unit, not instrumented itself. */
#define EDGEPROBE_PROVIDER
#include "edgeprobe.h"
