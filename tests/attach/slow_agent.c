/* A stand-in for the agent whose constructor takes 2 s: loaded with
 * `edgeprobe attach --lib`, it holds the seized thread inside the injected
 * dlopen long enough for tests/attach/vanisher.c to exit or exec there,
 * however loaded the machine. */
#include <time.h>

__attribute__((constructor)) static void take_long(void) {
    struct timespec t = {2, 0};
    while (nanosleep(&t, &t)) {
    }
}
