/* t_join_straddle.c - the first straddling patch right after pthread_join
 * (tests/drivers/reliability.sh, case sigtrap-join-not-refused).
 *
 *     t_join_straddle ROUNDS SPIN_US
 *
 * Each round two executors call rp_fn, whose 5-byte NOP straddles a cache
 * line, for SPIN_US; they are stopped and joined; then the NOP is patched
 * (edgeprobe_patch: a straddler, so every thread's blocked signals are read
 * first) and put back. A joined thread may still be listed in
 * /proc/self/task, exiting, with every signal blocked (glibc blocks them
 * before the exit call): it must not count as a thread that blocks
 * SIGTRAP. Run under tests/signal/slowreap.c, which keeps each exited
 * thread listed for milliseconds, as a descheduled one is on a loaded
 * machine. Prints the refusals; exits 1 if there were any. */
#define _GNU_SOURCE
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* rp_fn: a NOP5 with 2 bytes before the 64-byte boundary, then `x + 1` */
__asm__(".text\n.p2align 6\n.skip 62, 0xcc\n.globl rp_fn\n.type rp_fn,@function\nrp_fn:\n"
        ".byte 0x0f,0x1f,0x44,0x00,0x08\nlea 1(%rdi), %eax\nret\n.size rp_fn, .-rp_fn\n");
extern int rp_fn(int);
static volatile int running;

static void *executor(void *arg) {
    int i = 0;
    (void)arg;
    while (running) {
        if (rp_fn(i) != i + 1) abort();
        i++;
    }
    return 0;
}

int main(int argc, char **argv) {
    static const unsigned char nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x08}, jmp_next[5] = {0xe9, 0, 0, 0, 0};
    int rounds = argc > 1 ? atoi(argv[1]) : 20, spin_us = argc > 2 ? atoi(argv[2]) : 300, r, refused = 0, other = 0;
    unsigned char *site = (unsigned char *)(void *)rp_fn;
    if (64 - ((uintptr_t)site & 63) != 2) {
        fprintf(stderr, "t_join_straddle: rp_fn is not placed 2 bytes before a line\n");
        return 2;
    }
    for (r = 0; r < rounds; r++) {
        pthread_t th[2];
        int k, rc;
        running = 1;
        for (k = 0; k < 2; k++) pthread_create(&th[k], 0, executor, 0);
        usleep((useconds_t)spin_us);
        running = 0;
        for (k = 0; k < 2; k++) pthread_join(th[k], 0);
        rc = edgeprobe_patch(site, jmp_next, 5);
        if (rc < 0) {
            fprintf(stderr, "round %d: %s\n", r, edgeprobe_strerror(rc));
            rc == EDGEPROBE_EUNSAFE ? refused++ : other++;
            continue;
        }
        if ((rc = edgeprobe_patch(site, nop5, 5)) < 0) {
            fprintf(stderr, "round %d: putting the NOP back: %s\n", r, edgeprobe_strerror(rc));
            return 1;
        }
    }
    printf("t_join_straddle: %d rounds, %d refused as unsafe right after a join, %d other errors\n", rounds, refused,
           other);
    return refused || other;
}
