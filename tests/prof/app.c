/* app.c - a small threaded program for `edgeprobe prof` tests: four
 * threads call functions of the program (one static), of a linked library
 * and of a dlopen()ed one, all built with the same flag. Its stdout is
 * deterministic; it exits with status 7. Does not include edgeprobe.h. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

long applib_mix(long x); /* applib.c, linked */
static long (*plugin_step)(long);

static __attribute__((noinline)) long static_helper(long x) {
    __asm__ volatile("" ::: "memory");
    return x * 31 + 7;
}
__attribute__((noinline)) long app_work(long n) {
    long s = 0, i;
    for (i = 0; i < n; i++) s += static_helper(i) ^ applib_mix(i) ^ (plugin_step ? plugin_step(i) : 0);
    return s;
}
static void *worker(void *arg) {
    long k = (long)arg, i, s = 0;
    for (i = 0; i < 1000; i++) s += app_work(2000 + k);
    return (void *)s;
}
int main(int argc, char **argv) {
    pthread_t th[4];
    long i, total = 0;
    void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : 0;
    if (argc > 1 && !h) return 2;
    if (h) plugin_step = (long (*)(long))dlsym(h, "plugin_step");
    for (i = 0; i < 4; i++) pthread_create(&th[i], 0, worker, (void *)i);
    for (i = 0; i < 4; i++) {
        void *r;
        pthread_join(th[i], &r);
        total += (long)r;
    }
    printf("total %ld\n", total);
    for (i = 0; i < 3; i++) printf("line %ld: %ld\n", i, app_work(10 + i));
    return 7;
}
