/* tools/ring_files.h - the rings of a program under `edgeprobe record`,
 * read from their files (EDGEPROBE_RECORD_SHM, header section 11.8): what
 * a crash left in them (record) and a flight recorder's last events while
 * it runs (snapshot). Written as trace-file blocks (README, "The trace
 * file"). */
#ifndef EDGEPROBE_RING_FILES_H
#define EDGEPROBE_RING_FILES_H
#include <stdint.h>
#include <stdio.h>

/* One block: type, tid, payload bytes, then the payload. */
void ring_put_block(FILE *f, uint32_t type, int tid, const void *payload, uint64_t len);
/* Every ring file in dir: its events not yet in the trace file (a flight
 * ring's from its oldest) as an EVENTS block, its thread as a THREAD block;
 * then the END block (TSC of the last event, TSC Hz hz, events lost).
 * live: the program still writes its rings; only events that were not
 * overwritten while they were copied are kept. file_bytes: the trace
 * file's length in whole blocks, when it is to be completed (0: not
 * known); a ring's last block that reached it is not copied again.
 * Returns the events' count. */
uint64_t ring_dir_copy(FILE *f, const char *dir, int live, uint64_t file_bytes, uint64_t hz);
#endif
