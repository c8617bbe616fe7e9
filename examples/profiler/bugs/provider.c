/* provider.c - the provider translation unit for repro_tail.c and repro_sync.c */
#define EDGEPROBE_PROVIDER
#include "edgeprobe.h"
