/* tests/record/rec_forkdl.c - recording across dlopen/dlclose and fork
 * (tests/drivers/record.sh). Built twice: with -DLIB as a shared library
 * holding fd_lib_probe, and as the program, which loads, calls (100 hits)
 * and unloads it three times, then forks: the child hits fd_main_probe 100
 * times (and records nothing: its parent's recorder does not run there),
 * the parent 10 times after the child is gone. */
#define EDGEPROBE_IMPLEMENTATION /* one copy per executable or library */
#include "edgeprobe.h"
#ifdef LIB
void lib_work(long i);
void lib_work(long i) { EDGEPROBE_PROBE(fd_lib_probe, i); }
#else
#include <dlfcn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
static void main_work(long n) {
    long i;
    for (i = 0; i < n; i++) EDGEPROBE_PROBE(fd_main_probe, i);
}
int main(int argc, char **argv) {
    int k, status;
    pid_t child;
    if (argc != 2) return 2;
    for (k = 0; k < 3; k++) {
        void *h = dlopen(argv[1], RTLD_NOW);
        void (*work)(long) = h ? (void (*)(long))dlsym(h, "lib_work") : NULL;
        long i;
        if (!work) return printf("dlopen: %s\n", dlerror()), 1;
        for (i = 0; i < 100; i++) work(i);
        dlclose(h);
    }
    fflush(stdout);
    if ((child = fork()) == 0) {
        main_work(100);
        _exit(0);
    }
    waitpid(child, &status, 0);
    main_work(10);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
#endif
