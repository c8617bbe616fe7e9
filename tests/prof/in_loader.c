/* in_loader.c - probed functions called from a dl_iterate_phdr callback,
 * with the loader's lock held (tests/drivers/prof.sh, case
 * prof-in-loader): N walks of the loaded objects, 50 calls of two small
 * functions per object. Under `edgeprobe prof` a handler that switched a
 * function off waited for the registry lock, whose holder (the epoch
 * thread, switching functions on) waited for the loader's lock: hung, 3
 * of 3. Prints the walks and a sum that depends on the objects loaded:
 *
 *     in_loader [N]
 *     walks N sum S
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>

static long sum;
__attribute__((noinline)) long leaf_a(long x) {
    __asm__ volatile("");
    return x * 3 + 1;
}
__attribute__((noinline)) long leaf_b(long x) {
    __asm__ volatile("");
    return x ^ 5;
}
static int each_object(struct dl_phdr_info *info, size_t size, void *arg) {
    int i;
    (void)info, (void)size, (void)arg;
    for (i = 0; i < 50; i++) sum += leaf_a(i) + leaf_b(i);
    return 0;
}
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 300000, i;
    for (i = 0; i < n; i++) dl_iterate_phdr(each_object, 0);
    printf("walks %ld sum %ld\n", n, sum);
    return 0;
}
