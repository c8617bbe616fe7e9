/* edgeprobe prof - placeholder until the function-probe provider lands. */
#include <stdio.h>
#include "tool.h"
int cmd_prof(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "edgeprobe prof: not built yet\n");
    return 1;
}
