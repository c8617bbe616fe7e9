/* tools/record_agent.c - libedgeprobe-record.so, what `edgeprobe record`
 * preloads: the header's implementation, and the program's signal handlers
 * held back while ours run (signal_defer.h). Its constructor
 * (section 30, EDGEPROBE_RECORD) starts the recorder before main, and
 * switches on the functions of EDGEPROBE_RECORD_FUNCS in any object built
 * with -fpatchable-function-entry=5; markers of a program built with the
 * header record through the same process-wide registry. */
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include "signal_defer.h" /* the program's handlers wait while ours run */
