/* single_threaded_flag.c - why the profiler's epoch thread cannot hand
 * glibc's single-thread fast paths back to the program (bench/RESULTS-real.md,
 * fifteenth session): two threads add under one private pthread mutex,
 * with libc's own __libc_single_threaded left alone (no argument, or
 * none) or written back to 1 after pthread_create (borrow), as an agent would
 * to give malloc its lock-free paths again. glibc 2.36's pthread_mutex_lock
 * then takes a private mutex with a plain store when it reads 0 (no
 * atomic), and both threads hold it at once: glibc's own assertion stops
 * the process, additions are lost, or a wake-up is, and both threads wait
 * for ever (ended here after 10 s).
 *
 *     cc -O2 single_threaded_flag.c -pthread -ldl -o flag && ./flag && ./flag borrow
 *
 * The flag is found with dlsym in libc itself: a program that names it is
 * given a copy (a copy relocation), and writing that copy changes nothing
 * libc reads. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ADDS 5000000L
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *adder(void *arg) {
    long i;
    for (i = 0; i < ADDS; i++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
    }
    return arg;
}
static void hung(int sig) {
    static const char msg[] = "both threads wait for the mutex: a wake-up was lost\n";
    (void)sig;
    if (write(1, msg, sizeof msg - 1) < 0) {}
    _exit(1);
}
int main(int argc, char **argv) {
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    char *flag = libc ? (char *)dlsym(libc, "__libc_single_threaded") : 0;
    pthread_t t;
    if (!flag) {
        fprintf(stderr, "no __libc_single_threaded in libc.so.6 (glibc before 2.32?)\n");
        return 2;
    }
    signal(SIGALRM, hung);
    alarm(10);
    pthread_create(&t, 0, adder, 0);
    if (argc > 1 && strcmp(argv[1], "none")) *flag = 1; /* the borrow */
    adder(0);
    pthread_join(t, 0);
    printf("%s: %ld of %ld additions\n", argc > 1 ? "flag written back to 1" : "flag left alone", counter, 2 * ADDS);
    return counter == 2 * ADDS ? 0 : 1;
}
