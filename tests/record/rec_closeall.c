/* rec_closeall.c - a program that closes every descriptor from 3 up, as
 * daemons do, then opens OUT (which takes the lowest number: the trace
 * file's, under `edgeprobe record`) and writes lines of its own into it
 * while it calls ca_work (test record-closeall). OUT must hold its lines
 * and nothing else: the recorder writes only to the file it opened.
 *
 *     rec_closeall OUT
 *
 * Build with -O2 -fpatchable-function-entry=5. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;
__attribute__((noinline)) void ca_work(unsigned long i) { sink += i; }
int main(int argc, char **argv) {
    unsigned long i;
    int fd, round;
    if (argc < 2) return 2;
    for (i = 0; i < 100000; i++) ca_work(i);
    for (fd = 3; fd < 1024; fd++) close(fd);
    if ((fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) return 1;
    for (round = 0; round < 20; round++) {
        char line[64];
        int n = snprintf(line, sizeof line, "line %d of the program's own\n", round);
        for (i = 0; i < 100000; i++) ca_work(i);
        if (write(fd, line, (size_t)n) != n) return 1;
        usleep(2000); /* the recorder's rounds come meanwhile */
    }
    printf("fd %d\n", fd);
    return close(fd) ? 1 : 0;
}
