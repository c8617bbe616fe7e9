/* Calls until_work in a loop until the file argv[1] exists (then exits 0),
 * for `edgeprobe prof --report-now`: a report while it runs, another at
 * its end. Built with -fpatchable-function-entry=5. */
#include <unistd.h>

__attribute__((noinline)) unsigned long until_work(unsigned long x) {
    int i;
    for (i = 0; i < 200; i++) x = x * 6364136223846793005ul + 1442695040888963407ul;
    return x;
}
int main(int argc, char **argv) {
    volatile unsigned long v = 0;
    unsigned long n;
    if (argc != 2) return 2;
    for (n = 0;; n++) {
        v = until_work(v);
        if (!(n & 1023) && access(argv[1], F_OK) == 0) return 0;
    }
}
