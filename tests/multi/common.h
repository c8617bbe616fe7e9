/* Shared by the pieces of the multi-object test: each reports its probe
 * hits through a counter it owns. */
#ifndef MULTI_COMMON_H
#define MULTI_COMMON_H
#include "edgeprobe.h"
int tu2_run(void);               /* tu2.c: hits of its probes so far       */
int liba_run(void);              /* liba.so                                 */
int liba_enable(const char *);   /* edgeprobe_enable called inside liba.so */
void *liba_root(void);           /* liba.so's view of the process registry */
int liba_points(void);
typedef int (*libb_run_fn)(void);
#endif
