/* lttng_tp.h - the LTTng-UST tracepoint of bench/record/record_cost.c: the
 * same payload as the recorded EDGEPROBE_PROBE, two 64-bit integers. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ep_rec
#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "lttng_tp.h"
#if !defined(LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define LTTNG_TP_H
#include <lttng/tracepoint.h>
LTTNG_UST_TRACEPOINT_EVENT(ep_rec, hit, LTTNG_UST_TP_ARGS(uint64_t, a, uint64_t, b),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, a, a)
                                                   lttng_ust_field_integer(uint64_t, b, b)))
#endif
#include <lttng/tracepoint-event.h>
