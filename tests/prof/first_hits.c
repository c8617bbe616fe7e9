/* first_hits.c - 3,000 functions, each called for the first time while a
 * SIGALRM timer of 10-30 us runs whose handler leaves by siglongjmp
 * (tests/drivers/prof.sh, case prof-first-hits-siglongjmp). Built with
 * -finstrument-functions, every first call is a provider site's first hit
 * (the loader's lock in dladdr, then the registry's): a jump out of it
 * left a lock held, and the program hung at exit in 6 of 6 runs under
 * `edgeprobe prof` before the header made the first hit a guarded
 * stretch. Prints the timeouts taken and the functions that ran:
 *
 *     first_hits [ROUNDS]
 *     timeouts N functions F
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static sigjmp_buf jb;
static volatile long sink;
static volatile int ran[3000];

__attribute__((no_instrument_function)) static void on_alarm(int sig) {
    (void)sig;
    siglongjmp(jb, 1);
}
/* g000 ... g2999: a hundred names R(g, 0..29) at a time */
#define FN(name, k)                                                                                                    \
    __attribute__((noinline)) void name(void) {                                                                       \
        ran[k] = 1;                                                                                                    \
        sink += k;                                                                                                     \
    }
#define R10(M, p, k)                                                                                                   \
    M(p##0, (k)*10 + 0) M(p##1, (k)*10 + 1) M(p##2, (k)*10 + 2) M(p##3, (k)*10 + 3) M(p##4, (k)*10 + 4)            \
        M(p##5, (k)*10 + 5) M(p##6, (k)*10 + 6) M(p##7, (k)*10 + 7) M(p##8, (k)*10 + 8) M(p##9, (k)*10 + 9)
#define R100(M, p, k)                                                                                                  \
    R10(M, p##0, (k)*10 + 0) R10(M, p##1, (k)*10 + 1) R10(M, p##2, (k)*10 + 2) R10(M, p##3, (k)*10 + 3)             \
    R10(M, p##4, (k)*10 + 4) R10(M, p##5, (k)*10 + 5) R10(M, p##6, (k)*10 + 6) R10(M, p##7, (k)*10 + 7)             \
    R10(M, p##8, (k)*10 + 8) R10(M, p##9, (k)*10 + 9)
#define R3000(M)                                                                                                       \
    R100(M, g0, 0) R100(M, g1, 1) R100(M, g2, 2) R100(M, g3, 3) R100(M, g4, 4) R100(M, g5, 5) R100(M, g6, 6)          \
    R100(M, g7, 7) R100(M, g8, 8) R100(M, g9, 9) R100(M, g10, 10) R100(M, g11, 11) R100(M, g12, 12)                   \
    R100(M, g13, 13) R100(M, g14, 14) R100(M, g15, 15) R100(M, g16, 16) R100(M, g17, 17) R100(M, g18, 18)             \
    R100(M, g19, 19) R100(M, g20, 20) R100(M, g21, 21) R100(M, g22, 22) R100(M, g23, 23) R100(M, g24, 24)             \
    R100(M, g25, 25) R100(M, g26, 26) R100(M, g27, 27) R100(M, g28, 28) R100(M, g29, 29)
R3000(FN)
#define ADDR(name, k) name,
static void (*const table[])(void) = {R3000(ADDR)};
#define NFN ((long)(sizeof table / sizeof table[0]))

int main(int argc, char **argv) {
    long rounds = argc > 1 ? atol(argv[1]) : 1, f = 0;
    static volatile long timeouts = -1, r = 0, k = 0;
    struct itimerval stop, arm;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    memset(&stop, 0, sizeof stop);
    memset(&arm, 0, sizeof arm);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, 0);
    sigsetjmp(jb, 1);
    timeouts++;
    arm.it_value.tv_usec = 10 + timeouts % 21;
    setitimer(ITIMER_REAL, &arm, 0);
    for (; r < rounds; r++, k = 0)
        while (k < NFN) table[k++]();
    setitimer(ITIMER_REAL, &stop, 0);
    for (k = 0; k < NFN; k++) f += ran[k];
    printf("timeouts %ld functions %ld\n", timeouts, f);
    return 0;
}
