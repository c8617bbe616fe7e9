/* lttng_tp.h - the LTTng-UST tracepoint provider of the markers benchmark:
 * one event, ep_bench:hit, with one integer field. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ep_bench
#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "lttng_tp.h"
#if !defined(LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define LTTNG_TP_H
#include <lttng/tracepoint.h>
LTTNG_UST_TRACEPOINT_EVENT(ep_bench, hit, LTTNG_UST_TP_ARGS(int, x),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int, x, x)))
#endif
#include <lttng/tracepoint-event.h>
