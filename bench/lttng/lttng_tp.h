/* lttng_tp.h - the LTTng-UST tracepoint of bench/lttng/lttng_latency.c. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER bench_ep
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./lttng_tp.h"
#if !defined(LTTNG_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define LTTNG_TP_H
#include <lttng/tracepoint.h>
TRACEPOINT_EVENT(bench_ep, hit, TP_ARGS(int, v), TP_FIELDS(ctf_integer(int, v, v)))
#endif
#include <lttng/tracepoint-event.h>
