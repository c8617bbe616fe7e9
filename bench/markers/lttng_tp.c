/* lttng_tp.c - instantiates the LTTng-UST probes of lttng_tp.h. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "lttng_tp.h"
