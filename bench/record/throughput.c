/* throughput.c - how fast the recorder's thread moves events to a file:
 * one producer thread records EVENTS events of 4 arguments (48 bytes each)
 * as fast as it can, to a ring of RING bytes; the recorder writes them to
 * argv[1] (tmpfs: /dev/shm). Prints the producer's and the file's MB/s and
 * the events lost (the consumer fell behind when > 0). */
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
int main(int argc, char **argv) {
    long events = argc > 2 ? atol(argv[2]) : 20000000, i;
    edgeprobe_record_options opt = {argc > 3 ? (size_t)atol(argv[3]) : (size_t)1 << 26, 0, 0, 0};
    uint64_t args[4] = {1, 2, 3, 4};
    struct stat st;
    double t0, t1, t2;
    if (argc < 2 || edgeprobe_record_start(argv[1], &opt) < 0) return 2;
    t0 = now();
    for (i = 0; i < events; i++) args[0] = (uint64_t)i, edgeprobe_record_event(1, EDGEPROBE_EV_USER, args, 4);
    t1 = now();
    if (edgeprobe_record_stop() < 0 || stat(argv[1], &st)) return 1;
    t2 = now();
    printf("{\"bench\":\"record_throughput\",\"events\":%ld,\"ring_bytes\":%zu,\"producer_mb_s\":%.0f,"
           "\"file_mb_s\":%.0f,\"file_bytes\":%lld,\"lost\":%llu}\n",
           events, opt.ring_bytes, (double)events * 48 / 1e6 / (t1 - t0), (double)st.st_size / 1e6 / (t2 - t0),
           (long long)st.st_size, (unsigned long long)edgeprobe_record_lost());
    return 0;
}
