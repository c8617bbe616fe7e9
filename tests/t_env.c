/* EDGEPROBE_ENABLE applies before main. Usage: t_env NAME=0|1 ... checks
 * each probe's state as main starts (before any API call of main's own). */
#include <stdlib.h>
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"

static int fired[4];
__attribute__((noinline)) static void run(void) {
    if (EDGEPROBE_BRANCH(env_a1)) fired[0]++;
    if (EDGEPROBE_BRANCH(env_a2)) fired[1]++;
    if (EDGEPROBE_BRANCH(env_b)) fired[2]++;
    if (EDGEPROBE_BRANCH(env_c)) fired[3]++;
}
int main(int argc, char **argv) {
    static const char *names[4] = {"env_a1", "env_a2", "env_b", "env_c"};
    int i, k;
    run(); /* the sites' bytes decide, before main touched the API */
    for (i = 1; i < argc; i++) {
        for (k = 0; k < 4; k++) {
            size_t n = strlen(names[k]);
            if (strncmp(argv[i], names[k], n) == 0 && argv[i][n] == '=') {
                if (fired[k] != atoi(argv[i] + n + 1))
                    fprintf(stderr, "%s: fired %d, expected %s\n", names[k], fired[k], argv[i] + n + 1);
                CHECK_EQ(fired[k], atoi(argv[i] + n + 1));
            }
        }
    }
    return check_done("t_env");
}
